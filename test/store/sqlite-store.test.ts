/** Behaviour specific to the SQLite adapter: group commit, bounded buffering, reopening. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, StreamDeletedError, WrongExpectedVersionError } from '../../src/events/store/errors.js';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { collect, countEvents, events, eventsOf, readUntil, untilCaughtUp } from './helpers.js';

describe('sqlite event store', () => {
  let dir: string;
  let path: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-sqlite-'));
    path = join(dir, 'events.db');
    store = new SqliteEventStore(path);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits appends requested in the same tick together, refusing only the conflicting one', async () => {
    await store.append('g', events(1));
    const [a, b, c] = await Promise.allSettled([
      store.append('g', events(1), { expected: 0n }),
      store.append('g', events(1), { expected: 0n }),
      store.append('h', events(2), { expected: 'no_stream' }),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(b.status === 'rejected' && b.reason).toBeInstanceOf(WrongExpectedVersionError);
    expect(c.status).toBe('fulfilled');
    const positions = [a, c].map((r) => (r as PromiseFulfilledResult<{ position: { commit: bigint } }>).value.position.commit);
    // One transaction: the second successful append follows the first with no gap.
    expect(positions[1]).toBe(positions[0]! + 2n);
    expect((await collect(store.readStream('g'))).length).toBe(2);
  });

  it('a subscriber that falls far behind reads the rest from the file, still exactly once and in order', async () => {
    const sub = store.subscribeAll({ from: 'end' });
    await readUntil(sub, untilCaughtUp);
    // Nobody reads while 25,000 events arrive: more than the 10,000 the hub will buffer.
    for (let i = 0; i < 250; i++) await store.append(`burst-${i % 7}`, events(100));
    const got = eventsOf(await readUntil(sub, countEvents(25_000), 30_000));
    await sub.close();
    const all = await collect(store.readAll());
    expect(got.map((e) => e.id)).toEqual(all.map((e) => e.id));
  });

  it('keeps everything across close and reopen, continuing positions and revisions', async () => {
    const first = await store.append('keep', events(3));
    await store.close();
    store = new SqliteEventStore(path);
    const next = await store.append('keep', events(1), { expected: 2n });
    expect(next.nextExpectedRevision).toBe(3n);
    expect(next.position.commit).toBe(first.position.commit + 1n);
  });

  it('fails a whole group together when SQLite rolls back the transaction (disk full), writing nothing', async () => {
    const db = (store as unknown as { db: import('better-sqlite3').Database }).db;
    await store.append('before', events(1));
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const big = [{ type: 'Big', data: { blob: 'x'.repeat(500_000) } }];
    const results = await Promise.allSettled([
      store.append('g-a', events(1)),
      store.append('g-b', big),
      store.append('g-c', events(1)),
    ]);
    db.pragma('max_page_count = 4294967294');
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/SQLITE_FULL.*nothing was written/);
    }
    expect((await collect(store.readAll())).map((e) => e.stream)).toEqual(['before']);
  });

  it('keeps a delete after an append requested before it, and refuses retries to a tombstoned stream', async () => {
    const batch = events(1);
    const appended = store.append('order', batch);
    await store.tombstoneStream('order');
    await expect(appended).resolves.toMatchObject({ nextExpectedRevision: 0n });
    await expect(store.append('order', batch)).rejects.toBeInstanceOf(StreamDeletedError);
  });

  it('refuses work after close with a clear error', async () => {
    await store.close();
    await expect(store.append('x', events(1))).rejects.toThrow(/closed/);
  });

  it('delivers appends made before close to their callers', async () => {
    const pending = store.append('late', events(1));
    await store.close();
    await expect(pending).resolves.toMatchObject({ nextExpectedRevision: 0n });
    store = new SqliteEventStore(path);
    expect((await collect(store.readStream('late'))).length).toBe(1);
  });
});
