/**
 * The agent turn end to end: a real server (providers, secrets, agents, sessions over signed HTTP),
 * a scripted OpenAI-compatible model, and the executor the RuntimeModule provides called as the
 * dispatcher calls it, for a run MessageSession queued. The Log, the requests the model received and the partials are checked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { Module, type INestApplication } from '@nestjs/common';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../src/app.module.js';
import { loadRun } from '../../src/commands/runs/run-stream.js';
import { loadConfig } from '../../src/config/config.js';
import { PartialBus } from '../../src/events/partial-bus.js';
import type { SessionPartialPatch } from '../../src/protocol/ws.js';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import type { RunRow } from '../../src/projections/runs.projection.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import type { SessionEvent } from '../../src/protocol/sessions.js';
import { RUN_EXECUTOR, type ClaimedRun, type RunExecutor, type RunOutcome } from '../../src/runtime/run-executor.js';
import { RuntimeModule } from '../../src/runtime/runtime.module.js';
import { INTERRUPTED_CALL_ERROR } from '../../src/runtime/turn/agent-turn.executor.js';
import { startServer } from '../../src/server.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/scripted-model/scripted-model-server.js';
import { newKey, post, signedBody, type KeyPair } from '../gateway/signed.js';

const API_KEY = 'sk-test-123';

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('agent turn', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let model: ScriptedModelServer;
  let owner: KeyPair;
  let agentId: string;
  let log: EventLog;
  const partials: { sessionId: string; partialId: string; patch: SessionPartialPatch }[] = [];
  /** Called with each partial as it is published: a test's hook into the turn's timing. */
  let onPartial: (patch: SessionPartialPatch) => void = () => {};
  let executor: RunExecutor;
  const usedRuns = new Set<string>();

  const call = async (action: Record<string, unknown>) => {
    const response = await post(base, await signedBody(owner, action));
    const value = decode(response.bytes) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${String(action._)} answered ${response.status}: ${JSON.stringify(value)}`);
    return value;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-turn-'));
    // The application with the runtime beside it, wired as the dispatcher will find it.
    @Module({ imports: [AppModule.forRoot(config()), RuntimeModule] })
    class WithRuntime {}
    const started = await startServer(config(), { module: WithRuntime });
    app = started.app;
    base = `http://127.0.0.1:${started.port}`;
    app.get(PartialBus).listen((partial) => {
      if (partial.kind !== 'session') return;
      partials.push(partial);
      onPartial(partial.patch);
    });
    executor = app.get<RunExecutor>(RUN_EXECUTOR);
    model = await startScriptedModelServer();
    owner = newKey();
    log = app.get<EventLog>(EVENT_LOG);
    await call({ _: 'SetSecret', name: 'model-key', value: Buffer.from(`${API_KEY}\n`) });
    await call({ _: 'SetModelProvider', name: 'scripted', provider: { type: 'custom', baseUrl: model.baseUrl, secretRefs: { apiKey: 'model-key' } } });
    agentId = await createAgent('scripted');
  });
  afterEach(() => {
    expect(model.failures).toEqual([]);
    expect(model.remaining()).toBe(0);
    partials.length = 0;
    onPartial = () => {};
  });
  afterAll(async () => {
    await model.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The test hands runs to the executor itself: no dispatcher may claim them first.
  const config = () => loadConfig({ SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dir, SEED_AGENTS_LOG_LEVEL: 'warn', SEED_AGENTS_DISPATCH: 'off' });

  async function createAgent(provider: string): Promise<string> {
    const definition = { name: 'Tester', systemPrompt: 'You are a test agent.', modelProvider: provider, model: 'scripted-model', reasoningLevel: 'low' };
    return ((await call({ _: 'CreateAgent', definition })) as { agentId: string }).agentId;
  }

  async function newSession(agent = agentId, title?: string): Promise<string> {
    const { sessionId } = (await call({ _: 'CreateSession', agentId: agent })) as { sessionId: string };
    if (title) await call({ _: 'UpdateSession', sessionId, title });
    return sessionId;
  }

  /** Sends a message and returns the run MessageSession queued for it, as the dispatcher would claim it. */
  async function message(sessionId: string, text: string): Promise<ClaimedRun> {
    await call({ _: 'MessageSession', sessionId, content: [{ type: 'text', text }] });
    const rows = app.get(ProjectionService).reader('runs').all<RunRow>('SELECT * FROM {runs} WHERE session_id = ?', sessionId);
    const row = rows.find((r) => !usedRuns.has(r.run_id))!;
    usedRuns.add(row.run_id);
    const { run } = await loadRun(log, row.run_id);
    return {
      runId: run!.id,
      rootRunId: run!.rootRunId,
      attempt: 1,
      ownerAccountId: run!.ownerAccountId,
      agentId: run!.agentId,
      sessionId,
      messageEventIds: run!.messageEventIds,
      origin: run!.origin,
      priority: run!.priority,
    };
  }

  const execute = (run: ClaimedRun, signal: AbortSignal = new AbortController().signal): Promise<RunOutcome> => executor.execute(run, signal);

  async function getSession(sessionId: string): Promise<{ title?: string; events: SessionEvent['event'][] }> {
    const response = (await call({ _: 'GetSession', sessionId })) as { session: { title?: string }; events: SessionEvent[] };
    return { ...(response.session.title ? { title: response.session.title } : {}), events: response.events.map((e) => e.event) };
  }

  const requestsSince = (count: number) => model.requests.slice(count).filter((r) => r.path === '/v1/chat/completions');
  const titleTurn = (title: string) => ({
    expect: (request: { messages: ChatCompletionMessageParam[]; tools?: unknown }) =>
      String(request.messages[0]?.content).includes('session-titling') && !request.tools ? undefined : 'not the title request',
    reply: { text: title },
  });

  it('answers a message: text with meta, a plan call and its result, the final text, a title; the second turn replays it', async () => {
    const sessionId = await newSession();
    const run = await message(sessionId, 'Plan a trip');
    const before = model.requests.length;
    model.push(
      {
        expect: { model: 'scripted-model', reasoning_effort: 'low', toolNames: ['plan', 'status'], lastMessage: { role: 'user', content: /Plan a trip$/ } },
        reply: {
          text: 'Let me plan.',
          toolCalls: [{ id: 'call_plan_1', name: 'plan', arguments: { title: 'Trip', steps: [{ id: 'book', label: 'Book flights', status: 'done' }] } }],
          usage: { prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 40 } },
        },
      },
      { expect: { lastMessage: { role: 'tool', tool_call_id: 'call_plan_1' } }, reply: { text: 'All booked.', usage: { prompt_tokens: 150, completion_tokens: 5 } } },
      titleTurn('"Trip planning."'),
    );

    const outcome = await execute(run);

    const { title, events } = await getSession(sessionId);
    expect(events).toEqual([
      expect.objectContaining({ type: 'message', role: 'user', content: 'Plan a trip', actor: 'user' }),
      {
        type: 'message',
        role: 'assistant',
        content: 'Let me plan.',
        actor: 'agent',
        meta: { model: 'scripted-model', provider: 'scripted', usage: { input: 60, output: 20, cacheRead: 40, cacheWrite: 0, total: 120 }, durationMs: expect.any(Number) },
      },
      { type: 'tool_call', id: 'call_plan_1', name: 'plan', input: { title: 'Trip', steps: [{ id: 'book', label: 'Book flights', status: 'done' }] }, actor: 'agent' },
      {
        type: 'tool_result',
        toolCallId: 'call_plan_1',
        name: 'plan',
        output: { title: 'Trip', steps: [{ id: 'book', label: 'Book flights', status: 'done' }] },
        meta: { durationMs: expect.any(Number) },
        actor: 'agent',
      },
      expect.objectContaining({ type: 'message', role: 'assistant', content: 'All booked.', actor: 'agent' }),
    ]);
    expect(title).toBe('Trip planning');
    expect(outcome).toEqual({
      status: 'succeeded',
      assistantEventId: expect.any(String),
      usage: { input: 210, output: 25, cacheRead: 40, cacheWrite: 0, total: 275 },
    });

    const requests = requestsSince(before);
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const first = requests[0]!.body!;
    expect(first.stream).toBe(true);
    expect(first.messages[0]).toEqual({ role: 'system', content: expect.stringMatching(/^You are a test agent\.\n\n<session_status>\n\{\}\n<\/session_status>$/) });
    expect(first.tools?.map((t) => (t.type === 'function' ? t.function.name : ''))).toEqual(['plan', 'status']);

    // Partials: one id per assistant message, phases in order, cumulative usage, done at its end.
    const ids = [...new Set(partials.map((p) => p.partialId))];
    expect(ids).toHaveLength(2);
    const firstMessage = partials.filter((p) => p.partialId === ids[0]).map((p) => p.patch);
    expect(firstMessage[0]).toEqual({ activity: { phase: 'starting' } });
    expect(firstMessage[1]).toEqual({ activity: { phase: 'thinking' } });
    expect(firstMessage[2]).toMatchObject({ activity: { phase: 'responding' }, textDelta: expect.any(String) });
    expect(firstMessage.flatMap((p) => p.textDelta ?? []).join('')).toBe('Let me plan.');
    expect(firstMessage.slice(-2)).toEqual([{ usage: { input: 60, output: 20, cacheRead: 40, cacheWrite: 0, total: 120 } }, { done: true }]);
    const second = partials.filter((p) => p.partialId === ids[1]).map((p) => p.patch);
    expect(second[0]).toEqual({ activity: { phase: 'tool', toolName: 'plan', toolCallId: 'call_plan_1' } });
    expect(second[1]).toEqual({ activity: { phase: 'thinking' } });
    expect(second.at(-3)).toEqual({ usage: { input: 210, output: 25, cacheRead: 40, cacheWrite: 0, total: 275 } });
    expect(second.slice(-2)).toEqual([{ activity: { phase: 'finalizing' } }, { done: true }]);
    expect(outcome.status === 'succeeded' && outcome.assistantEventId).toBe(ids[1]);

    // The second turn: the first one replayed as one assistant message before its tool result,
    // the new message, then the plan as it stands.
    const next = await message(sessionId, 'And the hotel?');
    const mark = model.requests.length;
    model.push({ reply: { text: 'Hotel booked.' } });
    expect(await execute(next)).toMatchObject({ status: 'succeeded' });
    const [replayed] = requestsSince(mark);
    const messages = replayed!.body!.messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'user']);
    expect(messages[0]!.content).toContain('<session_status>\n{"title":"Trip planning"}\n</session_status>');
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: 'Let me plan.',
      tool_calls: [{ id: 'call_plan_1', type: 'function', function: { name: 'plan', arguments: '{"title":"Trip","steps":[{"id":"book","label":"Book flights","status":"done"}]}' } }],
    });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_plan_1', content: '{"title":"Trip","steps":[{"id":"book","label":"Book flights","status":"done"}]}' });
    expect(messages[4]).toEqual({ role: 'assistant', content: 'All booked.' });
    expect(messages[5]!.content).toMatch(/And the hotel\?$/);
    expect(messages[6]!.content).toMatch(/^<plan_state>\n[^\n]+\n\{"title":"Trip","steps":\[\{"id":"book","label":"Book flights","status":"done"\}\]\}\n<\/plan_state>$/);
    // Titled already: no second title request.
    expect(requestsSince(mark)).toHaveLength(1);
  });

  it('turns a model error into a tool result error the model reads, and bad arguments too', async () => {
    const sessionId = await newSession(agentId, 'Kept by the user');
    const run = await message(sessionId, 'go');
    model.push(
      {
        reply: {
          toolCalls: [
            { id: 'c1', name: 'plan', arguments: { steps: [{ label: 'x', status: 'finished' }] } },
            { id: 'c2', name: 'teleport', arguments: {} },
            { id: 'c3', name: 'plan', arguments: '{"steps": [' },
          ],
        },
      },
      { expect: { lastMessage: { role: 'tool', tool_call_id: 'c3' } }, reply: { text: 'Sorry.' } },
    );
    expect(await execute(run)).toMatchObject({ status: 'succeeded' });
    const results = (await getSession(sessionId)).events.filter((e) => e.type === 'tool_result');
    expect(results.map((r) => (r as { error?: string }).error)).toEqual([
      expect.stringMatching(/^The input does not match plan's schema: \/steps\/0\/status must be one of pending, running, done, failed, skipped\. Call it again with input matching \{/),
      'There is no tool named "teleport"; the tools are plan, status',
      expect.stringMatching(/^The arguments are not valid JSON \(.+\); send one JSON object matching plan's input schema$/),
    ]);
    const calls = (await getSession(sessionId)).events.filter((e) => e.type === 'tool_call');
    expect(calls.map((c) => (c as { input: unknown }).input)).toEqual([{ steps: [{ label: 'x', status: 'finished' }] }, {}, '{"steps": [']);
  });

  it('fails retryably on a provider 500, naming the provider and its host', async () => {
    const sessionId = await newSession(agentId, 'Errors');
    const run = await message(sessionId, 'hi');
    model.push({ reply: { status: 500, error: { message: 'The server had an error' } } });
    const outcome = await execute(run);
    const host = new URL(model.baseUrl).host;
    expect(outcome).toEqual({
      status: 'failed',
      error: { code: 'provider_error', message: `Model provider "scripted" at ${host} failed: HTTP 500 (The server had an error)` },
      retryable: true,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    expect((await getSession(sessionId)).events).toHaveLength(1);
  });

  it('fails for good on a 401, with a clear message and the key blanked out', async () => {
    const sessionId = await newSession(agentId, 'Errors');
    const run = await message(sessionId, 'hi');
    model.push({ reply: { status: 401, error: { message: `Incorrect API key provided: ${API_KEY}`, code: 'invalid_api_key' } } });
    const outcome = await execute(run);
    const host = new URL(model.baseUrl).host;
    expect(outcome).toMatchObject({
      status: 'failed',
      retryable: false,
      error: {
        code: 'provider_auth',
        message: `Model provider "scripted" at ${host} refused the request: HTTP 401 (Incorrect API key provided: [api key]); check the provider's API key (SetSecret stores a new one)`,
      },
    });
  });

  it('fails with provider_unreachable naming the host when nothing listens there', async () => {
    const port = await closedPort();
    await call({ _: 'SetModelProvider', name: 'dead', provider: { type: 'custom', baseUrl: `http://127.0.0.1:${port}/v1` } });
    const sessionId = await newSession(await createAgent('dead'), 'Unreachable');
    const outcome = await execute(await message(sessionId, 'hi'));
    expect(outcome).toMatchObject({
      status: 'failed',
      retryable: true,
      error: { code: 'provider_unreachable', message: `Could not reach model provider "dead" at 127.0.0.1:${port}: connection refused (ECONNREFUSED)` },
    });
  });

  it('fails for good when the agent’s provider is gone', async () => {
    await call({ _: 'SetModelProvider', name: 'doomed', provider: { type: 'custom', baseUrl: 'http://127.0.0.1:1/v1' } });
    const sessionId = await newSession(await createAgent('doomed'), 'Gone');
    const run = await message(sessionId, 'hi');
    await call({ _: 'DeleteModelProvider', name: 'doomed' });
    expect(await execute(run)).toMatchObject({ status: 'failed', retryable: false, error: { code: 'provider_missing', message: expect.stringMatching(/^Model provider "doomed"/) } });
  });

  it('returns promptly when aborted mid-stream, and closes the request', async () => {
    const sessionId = await newSession(agentId, 'Abort');
    const run = await message(sessionId, 'hi');
    model.push({ reply: { chunks: ['one ', 'two ', 'three ', 'four ', 'five '], chunkDelayMs: 500 } });
    const controller = new AbortController();
    onPartial = (patch) => {
      if (patch.textDelta) controller.abort();
    };
    const started = Date.now();
    const outcome = await execute(run, controller.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'aborted' } });
    expect(partials.at(-1)!.patch).toEqual({ done: true });
    await model.idle();
    expect(model.requests.at(-1)!.aborted).toBe(true);
    expect((await getSession(sessionId)).events).toHaveLength(1);
  });

  it('hands unfinished plan steps back three times, then leaves a system notice and succeeds owing them', async () => {
    const sessionId = await newSession(agentId, 'My own title');
    const run = await message(sessionId, 'research this');
    model.push(
      { reply: { toolCalls: [{ id: 'p1', name: 'plan', arguments: { steps: [{ id: 'r', label: 'Research', status: 'running' }, { id: 'w', label: 'Write', status: 'skipped' }] } }] } },
      { reply: { text: 'Working on it.' } },
      ...[1, 2, 3].map((n) => ({
        expect: (request: { messages: ChatCompletionMessageParam[] }) => {
          const [notice, planState] = request.messages.slice(-2);
          if (notice?.role !== 'user' || !String(notice.content).startsWith('Your turn ended with work still open:')) return `continuation ${n}: no notice`;
          return String(planState?.content).startsWith('<plan_state>') ? undefined : `continuation ${n}: no plan state last`;
        },
        reply: { text: `Still on it (${n}).` },
      })),
    );
    const outcome = await execute(run);
    expect(outcome).toMatchObject({ status: 'succeeded', output: { unmetObligations: [{ kind: 'plan', steps: ['Research'] }] } });
    const { title, events } = await getSession(sessionId);
    const notices = events.filter((e) => e.actor === 'system');
    expect(notices).toHaveLength(4);
    expect(notices.map((n) => (n as { role: string }).role)).toEqual(['user', 'user', 'user', 'user']);
    expect((notices[0] as { content: string }).content).toBe(
      'Your turn ended with work still open:\n- Plan steps not finished: "Research".\n' +
        'Finish them now, or close each one with the plan verb: done only when it is done; failed or skipped, with the reason, when it will not be. ' +
        '(This reminder comes from the runtime, not from the user.)',
    );
    expect((notices[3] as { content: string }).content).toBe(
      'The turn ended with work left open after 3 reminders:\n- Plan steps neither finished nor closed: "Research".\nNothing was marked done on the agent’s behalf.',
    );
    // A user's title: never replaced, never even asked for.
    expect(title).toBe('My own title');
  });

  it('keeps a title the user set against the status verb, and names an untitled session through it', async () => {
    const userTitled = await newSession(agentId, 'Mine');
    model.push(
      { reply: { toolCalls: [{ id: 's1', name: 'status', arguments: { title: 'Agent title', description: 'Reading the brief' } }] } },
      { reply: { text: 'Ok.' } },
    );
    expect(await execute(await message(userTitled, 'hi'))).toMatchObject({ status: 'succeeded' });
    const kept = await getSession(userTitled);
    expect(kept.title).toBe('Mine');
    expect(kept.events.find((e) => e.type === 'tool_result')).toMatchObject({
      output: { title: 'Mine', note: 'The user named this session, so their title stays.', description: 'Reading the brief' },
    });

    const untitled = await newSession();
    const mark = model.requests.length;
    model.push({ reply: { toolCalls: [{ id: 's2', name: 'status', arguments: { title: 'Agent title' } }] } }, { reply: { text: 'Ok.' } });
    expect(await execute(await message(untitled, 'hi'))).toMatchObject({ status: 'succeeded' });
    expect((await getSession(untitled)).title).toBe('Agent title');
    // Named by the agent: no automatic title request after the exchange.
    expect(requestsSince(mark)).toHaveLength(2);
  });

  it('resumes a run whose first execution died after its tool call: no duplicate events, the call answered as interrupted', async () => {
    const sessionId = await newSession(agentId, 'Resume');
    const run = await message(sessionId, 'go');
    model.push({ reply: { text: 'Planning.', toolCalls: [{ id: 'k1', name: 'plan', arguments: { steps: [{ label: 'Only step', status: 'done' }] } }] } });
    const controller = new AbortController();
    onPartial = (patch) => {
      if (patch.activity?.phase === 'tool') controller.abort();
    };
    expect(await execute(run, controller.signal)).toMatchObject({ status: 'failed', error: { code: 'aborted' } });
    expect((await getSession(sessionId)).events.map((e) => e.type)).toEqual(['message', 'message', 'tool_call']);

    onPartial = () => {};
    model.push({ expect: { lastMessage: { role: 'tool', tool_call_id: 'k1', content: `Error: ${INTERRUPTED_CALL_ERROR}` } }, reply: { text: 'Recovered.' } });
    const resumed = await execute({ ...run, attempt: 2 });
    expect(resumed).toMatchObject({ status: 'succeeded' });
    const events = (await getSession(sessionId)).events;
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['message', 'user'],
      ['message', 'agent'],
      ['tool_call', 'agent'],
      ['tool_result', 'system'],
      ['message', 'agent'],
    ]);
    expect(events[3]).toMatchObject({ toolCallId: 'k1', error: INTERRUPTED_CALL_ERROR });

    // Executed once more after it had finished (a crash before the outcome was recorded): nothing new.
    const again = await execute({ ...run, attempt: 3 });
    expect(again).toEqual({ ...resumed, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
    expect((await getSession(sessionId)).events).toHaveLength(5);
  });

  it('stops with session_gone when the session was deleted', async () => {
    const sessionId = await newSession(agentId, 'Doomed');
    const run = await message(sessionId, 'hi');
    await call({ _: 'DeleteSession', sessionId });
    expect(await execute(run)).toMatchObject({ status: 'failed', retryable: false, error: { code: 'session_gone' } });
  });
});
