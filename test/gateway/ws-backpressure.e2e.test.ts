/**
 * /agents/ws under pressure: a client that stops reading is closed as a slow consumer, with a reason
 * saying how to resume, and resumes losslessly with afterSeq; shutting the server down with sockets
 * open closes them and does not hang.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLogWriter } from '../../bench/ws-log.js';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { SLOW_CONSUMER_REASON } from '../../src/gateway/ws/connection.js';
import { WS_CLOSE, type AgentWSEvent } from '../../src/protocol/ws.js';
import type { SessionEvent } from '../../src/protocol/sessions.js';
import { newKey, signedApi, startTestServer, type KeyPair } from './signed.js';
import { definition, provider, TestSocket } from './ws-client.js';

const seqOf = (frame: AgentWSEvent): number | null => (frame._ === 'append' && 'event' in frame ? (frame.event as SessionEvent).seq : null);

describe('/agents/ws backpressure and shutdown', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let api: ReturnType<typeof signedApi>;
  let closed = false;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-ws-pressure-'));
    ({ app, base } = await startTestServer(dir));
    closed = false;
    owner = newKey();
    api = signedApi(base, owner);
    await api.ok({ _: 'SetModelProvider', name: 'local', provider });
  });
  afterEach(async () => {
    if (!closed) await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function session(): Promise<{ sessionId: string; writer: SessionLogWriter }> {
    const { agentId } = (await api.ok({ _: 'CreateAgent', definition })) as { agentId: string };
    const { sessionId } = (await api.ok({ _: 'CreateSession', agentId })) as { sessionId: string };
    return { sessionId, writer: await SessionLogWriter.open(app.get<EventLog>(EVENT_LOG), sessionId, principalToString(owner.principal)) };
  }

  it('closes a client that stops reading, saying to resume with afterSeq, and the resumed client misses nothing', async () => {
    const { sessionId, writer } = await session();
    const key = `sessions/${sessionId}`;
    const slow = await TestSocket.open(base);
    await slow.subscribe(owner, key);
    await slow.until((frame) => frame._ === 'change');
    slow.socket.pause();

    // More than the kernel's socket buffers and the 4 MiB limit together, in appends of at most
    // 1 MiB, each fanned out before the next.
    const filler = 'y'.repeat(10_000);
    const total = 1_000;
    for (let i = 0; i < total; i += 40) {
      await writer.append(Array.from({ length: 40 }, (_, j) => `${i + j} ${filler}`));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    slow.socket.resume();
    const { code, reason } = await slow.closed;
    expect(code).toBe(WS_CLOSE.SLOW_CONSUMER);
    expect(reason).toBe(SLOW_CONSUMER_REASON);
    const received = slow.frames.map(seqOf).filter((seq): seq is number => seq !== null);
    expect(received.length).toBeLessThan(total);
    expect(received).toEqual(received.map((_, i) => i + 1));

    const resumed = await TestSocket.open(base);
    await resumed.subscribe(owner, key, { afterSeq: received.length });
    const rest: number[] = [];
    while (rest.length === 0 || rest[rest.length - 1]! < total) {
      const seq = seqOf(await resumed.next());
      if (seq !== null) rest.push(seq);
    }
    expect([...received, ...rest]).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    resumed.socket.terminate();
  }, 60_000);

  it('closes open sockets on shutdown without hanging', async () => {
    const { sessionId } = await session();
    const sockets = await Promise.all([TestSocket.open(base), TestSocket.open(base), TestSocket.open(base)]);
    for (const socket of sockets) await socket.subscribe(owner, `sessions/${sessionId}`);
    for (const socket of sockets) await socket.until((frame) => frame._ === 'change');
    const idle = await TestSocket.open(base);
    const started = Date.now();
    await app.close();
    closed = true;
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const socket of [...sockets, idle]) {
      expect(await socket.closed).toEqual({ code: 1001, reason: 'Server shutting down; reconnect and resubscribe with afterSeq' });
    }
  });
});
