/**
 * A second process on the same file: it reads, subscribes and appends, and expected revisions hold
 * across both processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../src/events/store/errors.js';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import type { EventStore } from '../../src/events/store/types.js';
import { collect, countEvents, events, eventsOf, readUntil, untilCaughtUp } from './helpers.js';
import { startPeer } from './peer.js';

describe('sqlite store shared between processes', () => {
  let dir: string;
  let db: string;
  let store: EventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-xproc-'));
    db = join(dir, 'events.db');
    store = new SqliteEventStore(db);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a peer subscription catches up and then receives this process’s appends live, in order', async () => {
    await store.append('xp-1', events(50));
    const peer = startPeer(['subscribe', db, '250']);
    await peer.waitFor((l) => l.caughtUp === true);
    for (let i = 0; i < 20; i++) await store.append(`xp-${i % 3}`, events(10));
    await peer.exited;
    const delivered = peer.lines.filter((l) => 'id' in l).map((l) => l.id);
    expect(delivered).toEqual((await collect(store.readAll())).map((e) => e.id));
  });

  it('this process’s live subscription receives a peer’s appends', async () => {
    const sub = store.subscribeAll({ from: 'start' });
    await readUntil(sub, untilCaughtUp);
    const peer = startPeer(['append', db, 'from-peer', '100']);
    const got = eventsOf(await readUntil(sub, countEvents(100)));
    await peer.exited;
    expect(got.map((e) => e.revision)).toEqual(Array.from({ length: 100 }, (_, i) => BigInt(i)));
    await sub.close();
  });

  it('keeps local and foreign appends in log order for a local subscriber', async () => {
    const sub = store.subscribeAll({ from: 'start' });
    await readUntil(sub, untilCaughtUp);
    const peer = startPeer(['append', db, 'peer-stream', '200']);
    for (let i = 0; i < 200; i++) await store.append('local-stream', events(1));
    await peer.exited;
    const got = eventsOf(await readUntil(sub, countEvents(400)));
    await sub.close();
    expect(got.map((e) => e.id)).toEqual((await collect(store.readAll())).map((e) => e.id));
  });

  it('enforces expected revisions across processes: every revision has exactly one winner', async () => {
    const attempts = 1000;
    // All three start together, once the peers have had time to boot, so their attempts overlap.
    const startAt = Date.now() + 1500;
    const peers = [1, 2].map(() => startPeer(['race', db, 'contested', `${attempts}`, `${startAt}`]));
    await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
    let won = 0;
    let lost = 0;
    for (let i = 0; i < attempts; i++) {
      let expected: bigint | 'no_stream' = 'no_stream';
      try {
        for await (const e of store.readStream('contested', { direction: 'backwards', maxCount: 1 })) expected = e.revision;
      } catch (error) {
        if (!(error instanceof StreamNotFoundError)) throw error;
      }
      try {
        await store.append('contested', [{ id: randomUUID(), type: 'Raced', data: { pid: process.pid } }], { expected });
        won++;
      } catch (error) {
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        lost++;
      }
    }
    const results = await Promise.all(peers.map((p) => p.waitFor((l) => 'won' in l, 60_000)));
    for (const p of peers) expect((await p.exited).code).toBe(0);
    const totalWon = won + results.reduce((n, r) => n + (r.won as number), 0);
    const totalLost = lost + results.reduce((n, r) => n + (r.lost as number), 0);
    const stored = await collect(store.readStream('contested'));
    expect(stored.length).toBe(totalWon);
    expect(stored.map((e) => e.revision)).toEqual(stored.map((_, i) => BigInt(i)));
    expect(totalWon + totalLost).toBe(attempts * 3);
    // Three writers contending: some must have lost, or the test did not race.
    expect(totalLost).toBeGreaterThan(0);
    expect(new Set(stored.map((e) => (e.data as { pid: number }).pid)).size).toBeGreaterThan(1);
  });
});
