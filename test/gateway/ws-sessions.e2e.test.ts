/**
 * /agents/ws for sessions: the replay-to-live switch under concurrent appends, resuming with afterSeq,
 * a subscription made as the Seed apps make it, account change frames, partials, and the HTTP route
 * refusing Subscribe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { PartialBus } from '../../src/events/partial-bus.js';
import type { AgentWSEvent } from '../../src/protocol/ws.js';
import type { SessionEvent } from '../../src/protocol/sessions.js';
import { SessionLogWriter } from '../../bench/ws-log.js';
import { newKey, signedApi, post, signedBody, startTestServer, type KeyPair } from './signed.js';
import { subscribe } from '../../src/client/subscribe.js';
import { BrowserStyleWebSocket, definition, provider, text, TestSocket } from './ws-client.js';

type Append = Extract<AgentWSEvent, { _: 'append'; event: SessionEvent }>;
const isAppend = (frame: AgentWSEvent): frame is Append => frame._ === 'append' && 'event' in frame;

describe('/agents/ws sessions', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let api: ReturnType<typeof signedApi>;
  const sockets: TestSocket[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-ws-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    api = signedApi(base, owner);
    await api.ok({ _: 'SetModelProvider', name: 'local', provider });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.socket.terminate();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async () => {
    const socket = await TestSocket.open(base);
    sockets.push(socket);
    return socket;
  };
  const createAgent = async () => ((await api.ok({ _: 'CreateAgent', definition })) as { agentId: string }).agentId;
  const createSession = async (agentId: string) => ((await api.ok({ _: 'CreateSession', agentId })) as { sessionId: string }).sessionId;
  const send = (sessionId: string, words: string) => api.ok({ _: 'MessageSession', sessionId, content: text(words) });
  /** The Log as GetSession answers it: what every subscriber must end up with. */
  const logOf = async (sessionId: string) => ((await api.ok({ _: 'GetSession', sessionId })) as { events: SessionEvent[] }).events;

  /** Sends `count` messages from `writers` concurrent writers. */
  async function appendConcurrently(sessionId: string, count: number, writers = 4): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let i = next++; i < count; i = next++) await send(sessionId, `message ${i}`);
      }),
    );
  }

  it('replays then goes live with every Log event exactly once, in order, while appends race the subscriptions', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId);
    await appendConcurrently(sessionId, 20);
    const key = `sessions/${sessionId}`;
    // Eight sockets subscribe at staggered moments while four writers append: each switch from replay
    // to live happens with appends in flight on both sides of it.
    const subscribers = await Promise.all(Array.from({ length: 8 }, () => open()));
    await Promise.all([
      appendConcurrently(sessionId, 200),
      ...subscribers.map(async (socket, i) => {
        await new Promise((resolve) => setTimeout(resolve, 15 * i));
        await socket.subscribe(owner, key);
      }),
    ]);
    const log = await logOf(sessionId);
    expect(log.length).toBeGreaterThanOrEqual(220);
    const lastSeq = log[log.length - 1]!.seq;

    for (const socket of subscribers) {
      expect(await socket.next()).toEqual({ _: 'subscribed', key, accountId: principalToString(owner.principal) });
      expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: sessionId, agentId } });
      const appends: Append[] = [];
      while (appends.length === 0 || appends[appends.length - 1]!.event.seq < lastSeq) {
        const frame = await socket.next();
        if (isAppend(frame)) appends.push(frame);
      }
      expect(appends.map((a) => a.event.seq)).toEqual(log.map((e) => e.seq));
      expect(appends.map((a) => a.event)).toEqual(log);
    }
    for (const socket of subscribers) expect((await socket.quiet(50)).filter(isAppend)).toEqual([]);
    expect(subscribers.every((socket) => socket.binaryFrames === 0)).toBe(true);
  });

  it('holds live events while a long replay waits for a paused client, then sends each once, in order', async () => {
    const sessionId = await createSession(await createAgent());
    const key = `sessions/${sessionId}`;
    const filler = 'x'.repeat(4_000);
    // More Log events than one page of a stream read (1,000), and more bytes than the socket takes
    // at once: the replay waits for the client, and reads its second page after appends meanwhile.
    const writer = await SessionLogWriter.open(app.get<EventLog>(EVENT_LOG), sessionId, principalToString(owner.principal));
    // An append holds at most 1 MiB.
    for (let i = 0; i < 1_100; i += 100) await writer.append(Array.from({ length: 100 }, (_, j) => `${i + j} ${filler}`));
    await writer.verifyChain();
    const socket = await open();
    socket.socket.pause();
    await socket.subscribe(owner, key);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 50; i++) await writer.append([`live ${i}`]);
    socket.socket.resume();
    const log = await logOf(sessionId);
    const lastSeq = log[log.length - 1]!.seq;
    const seqs: number[] = [];
    while (seqs.length === 0 || seqs[seqs.length - 1]! < lastSeq) {
      const frame = await socket.next(10_000);
      if (isAppend(frame)) seqs.push(frame.event.seq);
    }
    expect(seqs).toEqual(log.map((e) => e.seq));
    expect((await socket.quiet()).filter(isAppend)).toEqual([]);
  }, 60_000);

  it('resumes after a disconnect with afterSeq: nothing lost, nothing repeated', async () => {
    const sessionId = await createSession(await createAgent());
    await appendConcurrently(sessionId, 10, 1);
    const first = await open();
    await first.subscribe(owner, `sessions/${sessionId}`);
    let seen: number[] = [];
    while (seen.length < 10) {
      const frame = await first.next();
      if (isAppend(frame)) seen.push(frame.event.seq);
    }
    await first.close();

    await appendConcurrently(sessionId, 15, 2);
    const second = await open();
    await second.subscribe(owner, `sessions/${sessionId}`, { afterSeq: seen[seen.length - 1]! });
    const appending = appendConcurrently(sessionId, 10, 2);
    const log = await (async () => {
      await appending;
      return logOf(sessionId);
    })();
    const lastSeq = log[log.length - 1]!.seq;
    while (seen[seen.length - 1]! < lastSeq) {
      const frame = await second.next();
      if (isAppend(frame)) seen.push(frame.event.seq);
    }
    expect(seen).toEqual(log.map((e) => e.seq));
    expect((await second.quiet()).filter(isAppend)).toEqual([]);
  });

  it('subscribes through the client library: frames as an async iterable, afterSeq honoured', async () => {
    const sessionId = await createSession(await createAgent());
    for (const words of ['one', 'two', 'three']) await send(sessionId, words);
    const subscription = subscribe(base, owner, `sessions/${sessionId}`, { afterSeq: 1, WebSocket: BrowserStyleWebSocket });
    const seen: string[] = [];
    for await (const frame of subscription) {
      seen.push(isAppend(frame) ? `append ${frame.event.seq}` : frame._);
      if (isAppend(frame) && frame.event.seq === 3) break;
    }
    expect(seen).toEqual(['connected', 'subscribed', 'change', 'append 2', 'append 3']);
    subscription.close();
    expect((await subscription.closed).code).toBe(1005);
  });

  it('accepts a Subscribe exactly as the Seed apps sign it, and tells the account of agents and sessions', async () => {
    const socket = await open();
    const accountId = principalToString(owner.principal);
    // signedBody signs with @seed-hypermedia/client's blobs.sign, no protocol field, afterSeq omitted.
    await socket.subscribe(owner, `account/${accountId}`);
    expect(await socket.next()).toEqual({ _: 'subscribed', key: `account/${accountId}`, accountId });

    const agentId = await createAgent();
    expect(await socket.next()).toEqual({ _: 'change', key: `account/${accountId}`, value: { reason: 'agent-created', agentId } });
    await api.ok({ _: 'UpdateAgent', agentId, definition: { ...definition, name: 'Renamed' } });
    expect(await socket.next()).toEqual({ _: 'change', key: `account/${accountId}`, value: { reason: 'agent-updated', agentId } });
    const sessionId = await createSession(agentId);
    expect(await socket.next()).toEqual({ _: 'change', key: `account/${accountId}`, value: { reason: 'session-created', agentId, sessionId } });
    expect(await socket.quiet()).toEqual([]);
  });

  it('sends only changes made after subscribing on the account key', async () => {
    const agentId = await createAgent();
    const socket = await open();
    const accountId = principalToString(owner.principal);
    await socket.subscribe(owner, `account/${accountId}`);
    await socket.next();
    expect(await socket.quiet()).toEqual([]);
    await createSession(agentId);
    expect(await socket.next()).toMatchObject({ value: { reason: 'session-created', agentId } });
  });

  it('forwards partials to the session’s subscribers as appendPartial, and never replays them', async () => {
    const sessionId = await createSession(await createAgent());
    await send(sessionId, 'hello');
    const bus = app.get(PartialBus);
    bus.publishSessionPartial(sessionId, 'nobody-listens', { textDelta: 'lost' });

    const socket = await open();
    await socket.subscribe(owner, `sessions/${sessionId}`);
    await socket.until((frame) => isAppend(frame) && frame.event.seq === 1);
    bus.publishSessionPartial(sessionId, 'p1', { textDelta: 'Hel' });
    bus.publishSessionPartial(sessionId, 'p1', { textDelta: 'lo', activity: { phase: 'responding' } });
    bus.publishSessionPartial(sessionId, 'p1', { done: true, usage: { input: 3, output: 2, cacheRead: 0, cacheWrite: 0, total: 5 } });
    const key = `sessions/${sessionId}`;
    expect(await socket.next()).toEqual({ _: 'appendPartial', key, partialId: 'p1', patch: { textDelta: 'Hel' } });
    expect(await socket.next()).toEqual({ _: 'appendPartial', key, partialId: 'p1', patch: { textDelta: 'lo', activity: { phase: 'responding' } } });
    expect(await socket.next()).toEqual({
      _: 'appendPartial',
      key,
      partialId: 'p1',
      patch: { done: true, usage: { input: 3, output: 2, cacheRead: 0, cacheWrite: 0, total: 5 } },
    });
    await socket.close();

    const again = await open();
    await again.subscribe(owner, key, { afterSeq: 0 });
    const replayed = await again.quiet(300);
    expect(replayed.map((frame) => frame._)).toEqual(['subscribed', 'change', ...replayed.filter(isAppend).map(() => 'append')]);
    expect(replayed.some((frame) => frame._ === 'appendPartial')).toBe(false);
  });

  it('sends a change when the session is renamed, and a last change and an error when it is deleted', async () => {
    const sessionId = await createSession(await createAgent());
    const socket = await open();
    const key = `sessions/${sessionId}`;
    await socket.subscribe(owner, key);
    await socket.next();
    await socket.next();
    await api.ok({ _: 'UpdateSession', sessionId, title: 'New title' });
    expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: sessionId, title: 'New title' } });
    await api.ok({ _: 'DeleteSession', sessionId });
    expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: sessionId, title: 'New title' } });
    expect(await socket.next()).toEqual({ _: 'error', message: `${key} ended: the session was deleted` });
    await send(sessionId, 'after').catch(() => undefined);
    expect(await socket.quiet()).toEqual([]);
  });

  it('sends a change when the session’s status moves with its runs', async () => {
    const sessionId = await createSession(await createAgent());
    const key = `sessions/${sessionId}`;
    const socket = await open();
    await socket.subscribe(owner, key);
    expect(await socket.until((frame) => frame._ === 'change')).toMatchObject({ value: { status: 'idle' } });
    await send(sessionId, 'start a turn');
    await api.ok({ _: 'StopSession', sessionId });
    expect(await socket.until((frame) => frame._ === 'change')).toMatchObject({ _: 'change', key, value: { id: sessionId, status: 'stopped' } });
  });

  it('refuses Subscribe over HTTP, naming the WebSocket endpoint', async () => {
    const response = await post(base, await signedBody(owner, { _: 'Subscribe', key: `account/${principalToString(owner.principal)}` }));
    expect(response.status).toBe(400);
    expect(decode(response.bytes)).toEqual({
      _: 'Error',
      message: 'Subscribe is accepted only over WebSocket at /agents/ws: open a WebSocket there and send this signed envelope as a binary frame',
    });
  });

  it('delivers every actor’s Log events: a collaborator’s messages reach the owner’s socket', async () => {
    const agentId = await createAgent();
    const writer = newKey();
    await api.ok({ _: 'InviteAgentCollaborator', agentId, accountId: principalToString(writer.principal), role: 'writer' });
    await api.ok({ _: 'AcceptAgentInvite', agentId }, writer);
    const sessionId = await createSession(agentId);
    const socket = await open();
    await socket.subscribe(owner, `sessions/${sessionId}`);
    await socket.next();
    await socket.next();
    await api.ok({ _: 'MessageSession', sessionId, content: text('from the writer') }, writer);
    const append = (await socket.until(isAppend)) as Append;
    expect(append.event.event).toMatchObject({ type: 'message', role: 'user', content: 'from the writer', actor: 'user' });
    expect((append.event.event as { meta?: { accountId?: string } }).meta?.accountId).toBe(principalToString(writer.principal));
  });
});
