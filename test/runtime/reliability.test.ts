/**
 * The runtime's two reliability promises, with compiled server processes (`seed-agents serve`) as a
 * user runs them:
 *
 * - exactly once across processes: two servers dispatching from one SQLite store execute 50 turns
 *   sent to them at once, each exactly once — one claim, one start, one success, one model request,
 *   one answer per message — and 50 more queued through a third server that does not dispatch, which
 *   both dispatchers learn of from the shared file at the same moment and race to claim;
 * - a server SIGKILLed in the middle of a turn loses nothing and repeats nothing: restarted on its
 *   data directory, it takes the run back at once (its node id names it the holder) and finishes it
 *   from the Log, without a second copy of anything already there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { decode } from '@ipld/dag-cbor';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { StreamNotFoundError } from '../../src/events/store/errors.js';
import type { RecordedEvent } from '../../src/events/store/types.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import {
  startScriptedModelServer,
  type ChatCompletionRequestBody,
  type RecordedRequest,
  type ScriptedModelServer,
} from '../fixtures/scripted-model/scripted-model-server.js';
import { newKey, post, signedBody, type KeyPair } from '../gateway/signed.js';
import { collect } from '../store/helpers.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const LOG_TYPES = ['message', 'tool_call', 'tool_result', 'error'];
const TERMINAL = ['RunSucceeded', 'RunFailed', 'RunCanceled'];

interface ServerProcess {
  child: ChildProcess;
  base: string;
  dataDir: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** `seed-agents serve` from dist/ (the test setup builds it) on a free port, once it says it listens. */
async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'serve'], {
    env: { ...process.env, SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dataDir, SEED_AGENTS_LOG_LEVEL: 'warn', SEED_AGENTS_DISPATCH: 'on', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 20 s; stderr: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+?:\d+)/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]!);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening; stderr: ${stderr}`));
    });
  });
  return { child, base, dataDir, exited, stderr: () => stderr };
}

async function stopServerProcess(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await server.exited;
  clearTimeout(timer);
}

/** Signs `action` as the Seed apps do and sends it to `base`; throws with the answer unless it is 200. */
async function ok(base: string, signer: KeyPair, action: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await post(base, await signedBody(signer, action, { protocol: AGENTS_PROTOCOL_VERSION }));
  const value = decode(response.bytes) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${String(action._)} at ${base} answered ${response.status}: ${JSON.stringify(value)}`);
  return value;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const readStream = async (store: SqliteEventStore, stream: string): Promise<RecordedEvent[]> => {
  try {
    return await collect(store.readStream(stream));
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
};
/** The run's lifecycle as types, lease renewals left out (their number is a matter of timing). */
const lifecycle = (events: RecordedEvent[]) => events.map((e) => e.type).filter((type) => type !== 'RunLeaseRenewed');
/** The automatic title's request: not streamed and offering no tools (src/runtime/turn/session-title.ts). */
const isTitleRequest = (request: RecordedRequest) => request.body !== undefined && request.body.stream !== true && !request.body.tools?.length;
const chatRequests = (model: ScriptedModelServer) => model.requests.filter((r) => r.path === '/v1/chat/completions');

function lastUserText(request: ChatCompletionRequestBody): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = typeof last.content === 'string' ? last.content : last.content.map((part) => ('text' in part ? part.text : '')).join('');
  return text.split('\n').at(-1);
}

async function setUpAgent(base: string, owner: KeyPair, model: ScriptedModelServer): Promise<string> {
  await ok(base, owner, { _: 'SetModelProvider', name: 'scripted', provider: { type: 'custom', baseUrl: model.baseUrl } });
  const definition = { name: 'Worker', systemPrompt: 'You are a test agent.', modelProvider: 'scripted', model: 'scripted-model' };
  return ((await ok(base, owner, { _: 'CreateAgent', definition })) as { agentId: string }).agentId;
}

describe('runtime reliability (compiled server processes)', () => {
  let root: string;
  const servers: ServerProcess[] = [];
  let model: ScriptedModelServer | undefined;
  let store: SqliteEventStore | undefined;

  afterEach(async () => {
    await Promise.all(servers.splice(0).map(stopServerProcess));
    await store?.close();
    store = undefined;
    await model?.close();
    model = undefined;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('two servers on one SQLite store execute 50 concurrent turns (and 50 raced for), each exactly once', { timeout: 60_000 }, async () => {
    const SESSIONS = 50;
    const RACED = 50;
    root = mkdtempSync(join(tmpdir(), 'seed-reliability-'));
    const eventsFile = join(root, 'events.db');
    const [dirA, dirB, dirC] = [join(root, 'a'), join(root, 'b'), join(root, 'c')];
    for (const dir of [dirA, dirB, dirC]) mkdirSync(dir);
    model = await startScriptedModelServer({
      // Every turn answered after a moment, so that runs of both servers overlap; titles at once.
      fallback: (request) =>
        request.stream === true ? { text: `Answer to: ${lastUserText(request) ?? '(no question)'}`, delayMs: 40 } : { text: 'A numbered question' },
    });
    const env = { SEED_AGENTS_EVENTS_FILE: eventsFile };
    const [a, b, c] = await Promise.all([
      startServerProcess(dirA, env),
      startServerProcess(dirB, env),
      startServerProcess(dirC, { ...env, SEED_AGENTS_DISPATCH: 'off' }),
    ]);
    servers.push(a!, b!, c!);
    const owner = newKey();
    const agentId = await setUpAgent(a!.base, owner, model);

    // Sessions through either server; then every message at once: the first SESSIONS alternating the
    // two dispatching servers, the other RACED through the one that does not dispatch.
    const sessionIds: string[] = [];
    for (let i = 0; i < SESSIONS + RACED; i++) {
      const via = i % 2 === 0 ? b! : a!;
      sessionIds.push(((await ok(via.base, owner, { _: 'CreateSession', agentId })) as { sessionId: string }).sessionId);
    }
    const questions = sessionIds.map((_, i) => `question ${i}`);
    const sendTo = (i: number) => (i >= SESSIONS ? c! : i % 2 === 0 ? a! : b!);
    await Promise.all(
      sessionIds.map((sessionId, i) => ok(sendTo(i).base, owner, { _: 'MessageSession', sessionId, content: [{ type: 'text', text: questions[i] }] })),
    );

    store = new SqliteEventStore(eventsFile);
    const queued = await collect(store.readAll({ filter: { eventTypes: ['RunQueued'] } }));
    expect(queued).toHaveLength(SESSIONS + RACED);
    const runIds = queued.map((e) => e.stream.slice('run-'.length));
    const runs = new Map<string, RecordedEvent[]>();
    await until(
      'every run to end',
      async () => {
        for (const runId of runIds) runs.set(runId, await readStream(store!, `run-${runId}`));
        return [...runs.values()].every((events) => events.some((e) => TERMINAL.includes(e.type)));
      },
      30_000,
    );

    // Each run: claimed once, started once, succeeded once — no failed attempt, no second claim.
    for (const [runId, events] of runs) expect(lifecycle(events), `run ${runId}`).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunSucceeded']);

    // Each session's Log: its one question and one answer to it, seq 1 and 2, ids unique.
    const allIds: string[] = [];
    for (const [i, sessionId] of sessionIds.entries()) {
      const logEvents = (await readStream(store, `session-${sessionId}`)).filter((e) => LOG_TYPES.includes(e.type));
      expect(
        logEvents.map((e) => [e.metadata.seq, e.type, (e.data as { role?: string }).role, (e.data as { content?: string }).content]),
        `session ${i}`,
      ).toEqual([
        [1, 'message', 'user', questions[i]],
        [2, 'message', 'assistant', `Answer to: ${questions[i]}`],
      ]);
      allIds.push(...logEvents.map((e) => e.id));
    }
    expect(new Set(allIds).size).toBe(allIds.length);

    // The model: exactly one turn request per run, each asking one session's question; one title per session.
    await model.idle();
    const requests = chatRequests(model);
    const turns = requests.filter((r) => !isTitleRequest(r));
    expect(turns.map((r) => lastUserText(r.body!)).sort()).toEqual([...questions].sort());
    expect(requests.filter(isTitleRequest)).toHaveLength(SESSIONS + RACED);
    expect(model.failures).toEqual([]);

    // Both dispatching processes worked (the one with its dispatcher off claimed nothing).
    const nodeOf = new Map([a!, b!].map((server, i) => [readFileSync(join(server.dataDir, 'node-id'), 'utf8').trim(), i === 0 ? 'A' : 'B']));
    const queuedBy = new Map(queued.map((e, i) => [e.stream.slice('run-'.length), i]));
    const split = { sent: { A: 0, B: 0 }, raced: { A: 0, B: 0 } };
    for (const [runId, events] of runs) {
      const owner = (events.find((e) => e.type === 'RunClaimed')!.data as { owner: string }).owner;
      const name = nodeOf.get(owner);
      expect(name, `RunClaimed by an unknown owner ${owner}`).toBeDefined();
      const session = sessionIds.indexOf((queued[queuedBy.get(runId)!]!.data as { sessionId: string }).sessionId);
      split[session >= SESSIONS ? 'raced' : 'sent'][name as 'A' | 'B']++;
    }
    console.log(
      `two servers: of the ${SESSIONS} turns sent to them, A executed ${split.sent.A} and B ${split.sent.B}; ` +
        `of the ${RACED} queued through the third, A ${split.raced.A} and B ${split.raced.B}`,
    );
    expect(split.sent.A + split.raced.A).toBeGreaterThan(0);
    expect(split.sent.B + split.raced.B).toBeGreaterThan(0);
  });

  it('a server SIGKILLed mid-turn: restarted on its data dir, it finishes the run with nothing repeated', { timeout: 60_000 }, async () => {
    root = mkdtempSync(join(tmpdir(), 'seed-sigkill-'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    model = await startScriptedModelServer({
      script: [
        // First model call: a plan call (durable tool_call and tool_result), no text.
        { reply: { toolCalls: [{ id: 'call_plan', name: 'plan', arguments: { steps: [{ label: 'Only step', status: 'done' }] } }] } },
        // Second: the server is killed while it waits for this one.
        { reply: { hang: true } },
        // After the restart: the pass resumes from the Log — the call once, answered once.
        {
          expect: (request) => {
            const calls = request.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length);
            const results = request.messages.filter((m) => m.role === 'tool');
            if (calls.length !== 1 || results.length !== 1 || (results[0] as { tool_call_id: string }).tool_call_id !== 'call_plan') {
              return `expected the plan call and its result once each, got ${calls.length} calls and ${results.length} results`;
            }
            return lastUserText(request) === 'Plan it, then report.' ? 'the request ends with the question again' : undefined;
          },
          reply: { text: 'All done.' },
        },
      ],
    });
    let a = await startServerProcess(dataDir);
    servers.push(a);
    const owner = newKey();
    const agentId = await setUpAgent(a.base, owner, model);
    // A title of its own: no title request after the answer, so the script is only the turn.
    const { sessionId } = (await ok(a.base, owner, { _: 'CreateSession', agentId, title: 'Crash test' })) as { sessionId: string };
    await ok(a.base, owner, { _: 'MessageSession', sessionId, content: [{ type: 'text', text: 'Plan it, then report.' }] });

    store = new SqliteEventStore(join(dataDir, 'events.db'));
    const [queued] = await collect(store.readAll({ filter: { eventTypes: ['RunQueued'] } }));
    const runStream = queued!.stream;
    await until('RunStarted', async () => lifecycle(await readStream(store!, runStream)).includes('RunStarted'));
    await until('the second model request', () => chatRequests(model!).length === 2);
    const beforeKill = (await readStream(store, `session-${sessionId}`)).filter((e) => LOG_TYPES.includes(e.type));
    expect(beforeKill.map((e) => e.type)).toEqual(['message', 'tool_call', 'tool_result']);

    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    servers.splice(servers.indexOf(a), 1);
    await until('the hung request to be dropped', () => chatRequests(model!)[1]!.aborted);
    const killedAt = Date.now();

    a = await startServerProcess(dataDir);
    servers.push(a);
    const ended = await until('the run to end', async () => {
      const events = await readStream(store!, runStream);
      return events.some((e) => TERMINAL.includes(e.type)) && events;
    });
    const claims = ended.filter((e) => e.type === 'RunClaimed');
    expect(lifecycle(ended)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunClaimed', 'RunStarted', 'RunSucceeded']);
    // The same node took it back, at once (long before the 30 s lease lapsed), without counting an attempt.
    const [first, again] = claims.map((e) => e.data as { owner: string; leaseUntil: number; attempt: number });
    expect(again!.owner).toBe(first!.owner);
    expect(again!.owner).toBe(readFileSync(join(dataDir, 'node-id'), 'utf8').trim());
    expect(again!.attempt).toBe(1);
    expect(claims[1]!.created).toBeLessThan(first!.leaseUntil);
    expect(claims[1]!.created - killedAt).toBeLessThan(15_000);

    // The Log: each durable event once — the question, the call and its result, one answer.
    const logEvents = (await readStream(store, `session-${sessionId}`)).filter((e) => LOG_TYPES.includes(e.type));
    expect(logEvents.map((e) => [e.metadata.seq, e.type, e.metadata.actor])).toEqual([
      [1, 'message', 'user'],
      [2, 'tool_call', 'agent'],
      [3, 'tool_result', 'agent'],
      [4, 'message', 'agent'],
    ]);
    expect(logEvents.slice(0, 3).map((e) => e.id)).toEqual(beforeKill.map((e) => e.id));
    expect(new Set(logEvents.map((e) => e.id)).size).toBe(logEvents.length);
    expect(logEvents[3]!.data).toMatchObject({ role: 'assistant', content: 'All done.' });
    expect((ended.find((e) => e.type === 'RunSucceeded')!.data as { assistantEventId?: string }).assistantEventId).toBe(logEvents[3]!.id);

    await model.idle();
    expect(chatRequests(model)).toHaveLength(3);
    expect(model.remaining()).toBe(0);
    expect(model.failures).toEqual([]);
    // The session reads the same through the restarted server.
    const got = (await ok(a.base, owner, { _: 'GetSession', sessionId })) as { session: { status: string }; events: { id: string }[] };
    expect(got.events.map((e) => e.id)).toEqual(logEvents.map((e) => e.id));
    await until('status idle', async () => ((await ok(a.base, owner, { _: 'GetSession', sessionId })) as { session: { status: string } }).session.status === 'idle');
  });
});
