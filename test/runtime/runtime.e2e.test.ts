/**
 * The runtime end to end: one server with its run dispatcher on, a scripted OpenAI-compatible model,
 * and only signed HTTP calls as the Seed apps make them. A message is answered durably, its run goes
 * through its lifecycle and the session's status follows it; StopSession cancels a streaming turn;
 * RetrySession re-runs a failed one (and is refused while a run is live); two collaborators messaging
 * one session at once get two turns, one after the other, each answering its own message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import type { INestApplication } from '@nestjs/common';
import { principalToString } from '@seed-hypermedia/client/blobs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { comparePositions } from '../../src/events/store/position.js';
import type { RecordedEvent } from '../../src/events/store/types.js';
import type { SessionEvent, SessionInfo } from '../../src/protocol/sessions.js';
import type { RunInfo } from '../../src/protocol/runs.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import {
  startScriptedModelServer,
  type ChatCompletionRequestBody,
  type ScriptedModelServer,
  type ScriptedReply,
} from '../fixtures/scripted-model/scripted-model-server.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from '../gateway/signed.js';
import { collect } from '../store/helpers.js';

type Answer = { status: number; value: Record<string, unknown> };
type LogEvent = SessionEvent;

const text = (words: string) => [{ type: 'text', text: words }];
const idOf = (key: KeyPair) => principalToString(key.principal);
const TERMINAL = ['RunSucceeded', 'RunFailed', 'RunCanceled'];

/** Polls until `check` answers something truthy; fails naming what it waited for. */
async function until<T>(what: string, check: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/**
 * The last line of the request's last message, when that is a user's: the words a person sent (the
 * runtime puts who sent them above, in a `<message_sender>` block, when a session has several senders).
 */
function lastUserText(request: ChatCompletionRequestBody): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = typeof last.content === 'string' ? last.content : last.content.map((part) => ('text' in part ? part.text : '')).join('');
  return text.split('\n').at(-1);
}

describe('runtime end to end (dispatcher on)', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let model: ScriptedModelServer;
  let log: EventLog;
  let owner: KeyPair;
  let agentId: string;
  /** What the model answers once nothing is scripted; a test sets it, and it is reset after each. */
  let fallback: ((request: ChatCompletionRequestBody) => ScriptedReply) | undefined;

  const call = async (action: Record<string, unknown>, signer: KeyPair = owner): Promise<Answer> => {
    const response = await post(base, await signedBody(signer, action, { protocol: AGENTS_PROTOCOL_VERSION }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown> };
  };
  const ok = async (action: Record<string, unknown>, signer: KeyPair = owner): Promise<Record<string, unknown>> => {
    const answer = await call(action, signer);
    if (answer.status !== 200) throw new Error(`${String(action._)} answered ${answer.status}: ${JSON.stringify(answer.value)}`);
    return answer.value;
  };

  const createSession = async (title?: string) =>
    ((await ok({ _: 'CreateSession', agentId, ...(title ? { title } : {}) })) as { sessionId: string }).sessionId;
  const getSession = async (sessionId: string) => (await ok({ _: 'GetSession', sessionId })) as { session: SessionInfo; events: LogEvent[] };
  const listedStatus = async (sessionId: string) =>
    ((await ok({ _: 'ListSessions', agentId, limit: 200 })) as { sessions: SessionInfo[] }).sessions.find((s) => s.id === sessionId)?.status;
  /** The session's runs, oldest first. */
  const runsOf = async (sessionId: string) => ((await ok({ _: 'ListRuns', sessionId })) as { runs: RunInfo[] }).runs.reverse();
  const runStream = async (runId: string): Promise<RecordedEvent[]> => collect(log.store.readStream(`run-${runId}`));
  /** The run's lifecycle, lease renewals left out (their number depends on timing). */
  const lifecycle = async (runId: string) => (await runStream(runId)).map((e) => e.type).filter((type) => type !== 'RunLeaseRenewed');
  const terminal = async (runId: string) => (await runStream(runId)).find((e) => TERMINAL.includes(e.type));
  const chatRequests = () => model.requests.filter((r) => r.path === '/v1/chat/completions');
  const assistantMessages = (events: LogEvent[]) => events.filter((e) => e.event.type === 'message' && e.event.role === 'assistant');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-runtime-e2e-'));
    model = await startScriptedModelServer({
      fallback: (request) => {
        if (!fallback) throw new Error('nothing scripted for this request');
        return fallback(request);
      },
    });
    ({ app, base } = await startTestServer(dir, { SEED_AGENTS_DISPATCH: 'on' }));
    log = app.get<EventLog>(EVENT_LOG);
    owner = newKey();
    await ok({ _: 'SetModelProvider', name: 'scripted', provider: { type: 'custom', baseUrl: model.baseUrl } });
    const definition = { name: 'Runner', systemPrompt: 'You are a test agent.', modelProvider: 'scripted', model: 'scripted-model' };
    agentId = ((await ok({ _: 'CreateAgent', definition })) as { agentId: string }).agentId;
  });
  /** Each test answers for its own script: what it left unconsumed or the model could not answer. */
  let failuresBefore = 0;
  beforeEach(() => {
    failuresBefore = model.failures.length;
  });
  afterEach(async () => {
    await model.idle();
    fallback = undefined;
    expect(model.failures.slice(failuresBefore)).toEqual([]);
    expect(model.remaining()).toBe(0);
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a message durably; the run goes queued → claimed → started → succeeded; the session streams, then idles', async () => {
    const sessionId = await createSession();
    expect((await getSession(sessionId)).session.status).toBe('idle');
    const before = chatRequests().length;
    model.push(
      { expect: { model: 'scripted-model', lastMessage: { role: 'user', content: /Hello there$/ } }, reply: { chunks: ['Hi', ', ', 'friend.'], chunkDelayMs: 250 } },
      // The automatic title, after the first exchange: not streamed, no tools.
      {
        expect: (request) => (request.stream !== true && !request.tools?.length ? undefined : 'not the title request'),
        reply: { text: 'Greeting a friend' },
      },
    );

    expect(await ok({ _: 'MessageSession', sessionId, content: text('Hello there') })).toEqual({ _: 'MessageSessionResponse', sessionId, assistantEventId: '' });
    // While the model streams, both reads say so.
    await until('GetSession status streaming', async () => (await getSession(sessionId)).session.status === 'streaming');
    expect(await listedStatus(sessionId)).toBe('streaming');

    const answer = await until('the durable assistant answer', async () => assistantMessages((await getSession(sessionId)).events)[0]);
    expect(answer.event).toMatchObject({ type: 'message', role: 'assistant', content: 'Hi, friend.', actor: 'agent', meta: { model: 'scripted-model', provider: 'scripted' } });
    expect(answer.seq).toBe(2);

    const [run] = await runsOf(sessionId);
    const succeeded = await until('RunSucceeded', () => terminal(run!.id));
    expect(succeeded.type).toBe('RunSucceeded');
    expect(succeeded.data).toMatchObject({ assistantEventId: answer.id });
    expect(await lifecycle(run!.id)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunSucceeded']);

    await until('GetSession status idle', async () => (await getSession(sessionId)).session.status === 'idle');
    expect(await listedStatus(sessionId)).toBe('idle');
    const { session, events } = await getSession(sessionId);
    expect(session.title).toBe('Greeting a friend');
    expect(events.map((e) => [e.seq, e.event.type, e.event.actor])).toEqual([
      [1, 'message', 'user'],
      [2, 'message', 'agent'],
    ]);
    expect(chatRequests().length - before).toBe(2);
    expect((await ok({ _: 'GetRun', runId: run!.id })).run).toMatchObject({ status: 'succeeded', sessionId });
  });

  it('keeps the title the session was created with: no automatic title replaces it', async () => {
    const sessionId = await createSession('Named at creation');
    const before = chatRequests().length;
    // Anything asked is answered, a title request included: only not asking keeps the title.
    fallback = () => ({ text: 'Some other title' });
    await ok({ _: 'MessageSession', sessionId, content: text('Hi') });
    const [run] = await runsOf(sessionId);
    expect((await until('the run to end', () => terminal(run!.id))).type).toBe('RunSucceeded');
    expect((await getSession(sessionId)).session.title).toBe('Named at creation');
    // One request: the turn. No title was asked for.
    expect(chatRequests().length - before).toBe(1);
  });

  it('StopSession during a slow stream cancels the run: RunCanceled, status stopped, nothing appended after', async () => {
    const sessionId = await createSession('To be stopped');
    const before = model.requests.length;
    model.push({ reply: { chunks: ['one ', 'two ', 'three ', 'four ', 'five'], chunkDelayMs: 300 } });
    await ok({ _: 'MessageSession', sessionId, content: text('Count slowly') });
    const [run] = await runsOf(sessionId);
    await until('RunStarted', async () => (await lifecycle(run!.id)).includes('RunStarted'));
    // The model has begun answering: the turn is mid-stream.
    await until('the first streamed bytes', () => model.requests.slice(before).some((r) => r.firstByteMs !== undefined));

    expect(await ok({ _: 'StopSession', sessionId })).toEqual({ _: 'StopSessionResponse', sessionId, stopped: true });
    const canceled = await until('RunCanceled', () => terminal(run!.id));
    expect(canceled.type).toBe('RunCanceled');
    expect(canceled.data).toMatchObject({ reason: 'session-stopped' });
    await until('GetSession status stopped', async () => (await getSession(sessionId)).session.status === 'stopped');
    expect(await listedStatus(sessionId)).toBe('stopped');

    // The request was aborted, and after the stream's scripted end has passed nothing more lands.
    await model.idle();
    expect(model.requests.slice(before).map((r) => r.aborted)).toEqual([true]);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const { events } = await getSession(sessionId);
    expect(events.map((e) => [e.event.type, e.event.actor])).toEqual([['message', 'user']]);
    const stream = await runStream(run!.id);
    expect(stream.at(-1)!.type).toBe('RunCanceled');
    expect(stream.filter((e) => TERMINAL.includes(e.type))).toHaveLength(1);
    const sessionStream = await collect(log.store.readStream(`session-${sessionId}`));
    expect(sessionStream.filter((e) => comparePositions(e.position, canceled.position) > 0)).toEqual([]);
    // Stopping again: nothing live to stop.
    expect(await ok({ _: 'StopSession', sessionId })).toEqual({ _: 'StopSessionResponse', sessionId, stopped: false });
  });

  it('RetrySession after a non-retryable failure: a system error in the Log, 409 while the retry runs, then the answer', async () => {
    const sessionId = await createSession('Retried');
    model.push({ reply: { status: 401, error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } });
    await ok({ _: 'MessageSession', sessionId, content: text('Are you there?') });
    const [failedRun] = await runsOf(sessionId);
    const failed = await until('RunFailed', () => terminal(failedRun!.id));
    expect(failed.type).toBe('RunFailed');
    expect(failed.data).toMatchObject({ error: { code: 'provider_auth' } });
    // Not retryable: failed once, never queued again.
    expect(await lifecycle(failedRun!.id)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunFailed']);
    const errorEvent = await until('the Log error event', async () => (await getSession(sessionId)).events.find((e) => e.event.type === 'error'));
    expect(errorEvent.event).toMatchObject({ type: 'error', actor: 'system', message: expect.stringMatching(/refused the request: HTTP 401/) });
    await until('GetSession status error', async () => (await getSession(sessionId)).session.status === 'error');

    // The script now answers, slowly enough to try a second retry while the first one runs.
    const before = model.requests.length;
    model.push({ expect: { lastMessage: { role: 'user', content: /Are you there\?$/ } }, reply: { chunks: ['Yes, ', 'I am.'], chunkDelayMs: 400 } });
    expect(await ok({ _: 'RetrySession', sessionId })).toEqual({ _: 'RetrySessionResponse', sessionId, assistantEventId: '' });
    const retry = (await runsOf(sessionId)).at(-1)!;
    expect(retry.id).not.toBe(failedRun!.id);
    await until('the retry to reach the model', () => model.requests.length > before);
    const refused = await call({ _: 'RetrySession', sessionId });
    expect(refused.status).toBe(409);
    expect(refused.value.message).toMatch(/working in this thread right now/);

    const succeeded = await until('the retry RunSucceeded', () => terminal(retry.id));
    expect(succeeded.type).toBe('RunSucceeded');
    const { events } = await getSession(sessionId);
    expect(events.map((e) => [e.event.type, e.event.actor])).toEqual([
      ['message', 'user'],
      ['error', 'system'],
      ['message', 'agent'],
    ]);
    expect(assistantMessages(events)[0]!.event).toMatchObject({ content: 'Yes, I am.' });
    expect(succeeded.data).toMatchObject({ assistantEventId: assistantMessages(events)[0]!.id });
    // The latest run succeeded: nothing to retry.
    expect((await call({ _: 'RetrySession', sessionId })).status).toBe(409);
  });

  it('two collaborators messaging one session at once: two turns, one after the other, each answering its own message', async () => {
    const writer = newKey();
    await ok({ _: 'InviteAgentCollaborator', agentId, accountId: idOf(writer), role: 'writer' });
    await ok({ _: 'AcceptAgentInvite', agentId }, writer);
    const sessionId = await createSession('Shared');
    const before = chatRequests().length;
    fallback = (request) => {
      const asked = lastUserText(request);
      return { text: asked ? `Answer to: ${asked}` : 'No question is waiting for an answer.', delayMs: 300 };
    };

    const answers = await Promise.all([
      call({ _: 'MessageSession', sessionId, content: text('from the owner') }, owner),
      call({ _: 'MessageSession', sessionId, content: text('from the writer') }, writer),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const runs = await runsOf(sessionId);
    expect(runs).toHaveLength(2);
    const ends = await Promise.all(runs.map((run) => until(`run ${run.id} to end`, () => terminal(run.id))));
    expect(ends.map((e) => e.type)).toEqual(['RunSucceeded', 'RunSucceeded']);

    // Serialized: the second run was claimed only after the first had ended.
    const [first, second] = await Promise.all(runs.map((run) => runStream(run.id)));
    const claimedSecond = second!.find((e) => e.type === 'RunClaimed')!;
    expect(comparePositions(claimedSecond.position, first!.find((e) => e.type === 'RunSucceeded')!.position)).toBe(1);
    const requests = chatRequests().slice(before);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at).toBeGreaterThanOrEqual(requests[0]!.at + 300);

    // Each run's model request ended with the message that run answers.
    const { events } = await getSession(sessionId);
    const users = events.filter((e) => e.event.type === 'message' && e.event.role === 'user');
    expect(users).toHaveLength(2);
    const runMessages = await Promise.all(runs.map(async (run) => ((await runStream(run.id))[0]!.data as { messageEventIds: string[] }).messageEventIds));
    const contentOf = (id: string) => (users.find((u) => u.id === id)!.event as { content: string }).content;
    const asked = runMessages.map((ids) => contentOf(ids[0]!));
    expect(requests.map((r) => lastUserText(r.body!))).toEqual(asked);
    expect(assistantMessages(events).map((e) => (e.event as { content: string }).content)).toEqual(asked.map((q) => `Answer to: ${q}`));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    await until('GetSession status idle', async () => (await getSession(sessionId)).session.status === 'idle');
  });
});
