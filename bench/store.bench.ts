/**
 * Throughput and latency of the embedded SQLite event store, against a raw better-sqlite3 baseline,
 * all in one run on one machine. Timings are printed, never asserted. The last line of output is a
 * single JSON object with the figures and whether each meets its target.
 *
 *   npm run bench:store
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSchema, type Durability } from '../src/events/store/sqlite/schema.js';
import { SqliteEventStore } from '../src/events/store/sqlite/sqlite-event-store.js';
import type { ExpectedRevision } from '../src/events/store/types.js';
import {
  baselineId,
  EVENT_TYPE,
  eventData,
  eventMetadata,
  makeEvent,
  makeEvents,
  makeEventsWithIds,
  streamName,
} from './lib/events.js';
import {
  collectGarbage,
  nowSeconds,
  percentile,
  printHeader,
  printLine,
  printRate,
  round,
  sortedCopy,
} from './lib/stats.js';
import { withTempDir } from './lib/tmp.js';

const DURABILITY: Durability = 'process';
/** Streams the sequential scenarios rotate over. */
const STREAMS = 1000;
/** Events per transaction (baseline) and per append (batched). */
const BATCH = 100;
/** Rows written untimed first (same count for baseline and store, so both time the same index sizes). */
const WRITE_WARMUP = 10_000;
const WRITE_EVENTS = 300_000;
const SINGLE_WARMUP = 1_000;
const SINGLE_EVENTS = 25_000;
const APPENDERS = 100;
const CONCURRENT_WARMUP_EACH = 20;
const CONCURRENT_EACH = 800;
const READ_LOG = 400_000;
/**
 * The read log is seeded with large appends (~600 KB, under the 1 MB cap) of events with ascending
 * caller-assigned ids: few commits, and ids land in index order, so seeding takes little of the run.
 */
const SEED_BATCH = 2_500;
const LIVE_WARMUP = 500;
const LIVE_N = 5_000;

const TARGET = { batchedRatio: 0.5, concurrent: 20_000, readAll: 300_000, liveP99Ms: 2 };

const dbPath = (dir: string): string => join(dir, 'events.db');

// ---------------------------------------------------------------------------------------------------
// 1. Baseline: raw better-sqlite3, same schema and pragmas, transactions of BATCH rows.

function rawInsertLoop(db: Database.Database, firstBatch: number, batches: number, nextRevision: Int32Array): void {
  const insert = db.prepare(
    'INSERT INTO events (stream, revision, id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const writeBatch = db.transaction((stream: string, firstRevision: number, firstSeq: number) => {
    const now = Date.now();
    for (let i = 0; i < BATCH; i++) {
      const seq = firstSeq + i;
      insert.run(
        stream,
        firstRevision + i,
        baselineId(),
        EVENT_TYPE,
        JSON.stringify(eventData(seq)),
        JSON.stringify(eventMetadata(seq)),
        now,
      );
    }
  });
  for (let b = firstBatch; b < firstBatch + batches; b++) {
    const s = b % STREAMS;
    writeBatch(streamName('s', s), nextRevision[s]!, b * BATCH);
    nextRevision[s]! += BATCH;
  }
}

async function baseline(bare: boolean): Promise<number> {
  return withTempDir(bare ? 'bare' : 'baseline', async (dir) => {
    const db = new Database(dbPath(dir));
    try {
      openSchema(db, DURABILITY);
      if (bare) {
        // Whatever secondary indexes the schema declares on events (not the rowid primary key).
        const indexes = db
          .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL")
          .pluck()
          .all();
        for (const name of indexes) db.exec(`DROP INDEX "${name}"`);
      }
      const next = new Int32Array(STREAMS);
      const warmBatches = WRITE_WARMUP / BATCH;
      rawInsertLoop(db, 0, warmBatches, next);
      const t = nowSeconds();
      rawInsertLoop(db, warmBatches, WRITE_EVENTS / BATCH, next);
      const seconds = nowSeconds() - t;
      return printRate({
        name: bare ? 'raw insert, bare table (info)' : 'baseline: raw insert, store schema',
        events: WRITE_EVENTS,
        seconds,
        note: bare ? 'no secondary indexes' : `tx of ${BATCH}, prepared stmt`,
      });
    } finally {
      db.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// 2. Batched appends, one after another, with exact expected revisions.

async function appendBatches(
  store: SqliteEventStore,
  firstBatch: number,
  batches: number,
  next: ExpectedRevision[],
): Promise<void> {
  for (let b = firstBatch; b < firstBatch + batches; b++) {
    const s = b % STREAMS;
    const result = await store.append(streamName('s', s), makeEvents(b * BATCH, BATCH), { expected: next[s]! });
    next[s] = result.nextExpectedRevision;
  }
}

async function batchedAppends(baselineRate: number | undefined): Promise<number> {
  return withTempDir('batched', async (dir) => {
    const store = new SqliteEventStore(dbPath(dir), { durability: DURABILITY });
    try {
      const next: ExpectedRevision[] = new Array(STREAMS).fill('no_stream');
      const warmBatches = WRITE_WARMUP / BATCH;
      await appendBatches(store, 0, warmBatches, next);
      const t = nowSeconds();
      await appendBatches(store, warmBatches, WRITE_EVENTS / BATCH, next);
      const seconds = nowSeconds() - t;
      return printRate({
        name: `batched appends (${BATCH}/append)`,
        events: WRITE_EVENTS,
        seconds,
        baseline: baselineRate,
        note: `sequential, ${STREAMS} streams`,
      });
    } finally {
      await store.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// 3. Single-event appends, one after another.

async function appendSingles(store: SqliteEventStore, first: number, count: number, next: ExpectedRevision[]): Promise<void> {
  for (let i = first; i < first + count; i++) {
    const s = i % STREAMS;
    const result = await store.append(streamName('s', s), [makeEvent(i)], { expected: next[s]! });
    next[s] = result.nextExpectedRevision;
  }
}

async function singleAppends(baselineRate: number | undefined): Promise<number> {
  return withTempDir('single', async (dir) => {
    const store = new SqliteEventStore(dbPath(dir), { durability: DURABILITY });
    try {
      const next: ExpectedRevision[] = new Array(STREAMS).fill('no_stream');
      await appendSingles(store, 0, SINGLE_WARMUP, next);
      const t = nowSeconds();
      await appendSingles(store, SINGLE_WARMUP, SINGLE_EVENTS, next);
      const seconds = nowSeconds() - t;
      return printRate({
        name: 'single-event appends',
        events: SINGLE_EVENTS,
        seconds,
        baseline: baselineRate,
        note: 'sequential, one commit each',
      });
    } finally {
      await store.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// 4. Concurrent single-event appenders: exercises group commit.

async function concurrentRound(store: SqliteEventStore, each: number, next: ExpectedRevision[]): Promise<void> {
  await Promise.all(
    Array.from({ length: APPENDERS }, async (_, k) => {
      const stream = streamName('c', k);
      for (let i = 0; i < each; i++) {
        const result = await store.append(stream, [makeEvent(i)], { expected: next[k]! });
        next[k] = result.nextExpectedRevision;
      }
    }),
  );
}

async function concurrentAppends(baselineRate: number | undefined): Promise<number> {
  return withTempDir('concurrent', async (dir) => {
    const store = new SqliteEventStore(dbPath(dir), { durability: DURABILITY });
    // Bench-only instrumentation: count group commits to report the mean group size. `flush` is the
    // store's private commit step, called as `this.flush()` from a microtask, so an own property wins.
    const internals = store as unknown as { flush(): void };
    const flush = internals.flush.bind(store);
    let flushes = 0;
    internals.flush = () => {
      flushes++;
      flush();
    };
    try {
      const next: ExpectedRevision[] = new Array(APPENDERS).fill('no_stream');
      await concurrentRound(store, CONCURRENT_WARMUP_EACH, next);
      flushes = 0;
      const t = nowSeconds();
      await concurrentRound(store, CONCURRENT_EACH, next);
      const seconds = nowSeconds() - t;
      const events = APPENDERS * CONCURRENT_EACH;
      const rate = printRate({
        name: `${APPENDERS} concurrent single appenders`,
        events,
        seconds,
        baseline: baselineRate,
        note: `${flushes.toLocaleString('en-US')} commits, mean group ${(events / flushes).toFixed(1)} appends`,
      });
      return rate;
    } finally {
      await store.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// 5 + 6. readAll and catch-up subscription over one seeded log.

async function seedLog(path: string): Promise<void> {
  const store = new SqliteEventStore(path, { durability: DURABILITY });
  try {
    // Interleave streams inside the log as real traffic would, while keeping appends large.
    const streams = 100;
    const next: ExpectedRevision[] = new Array(streams).fill('no_stream');
    for (let b = 0; b < READ_LOG / SEED_BATCH; b++) {
      const s = b % streams;
      const result = await store.append(streamName('r', s), makeEventsWithIds(b * SEED_BATCH, SEED_BATCH), {
        expected: next[s]!,
      });
      next[s] = result.nextExpectedRevision;
    }
  } finally {
    await store.close();
  }
}

async function readAllScenario(path: string): Promise<number> {
  const store = new SqliteEventStore(path, { durability: DURABILITY });
  try {
    let warm = 0;
    for await (const _ of store.readAll({ maxCount: 20_000 })) warm++;
    let count = 0;
    let lastRevisionSum = 0n;
    const t = nowSeconds();
    for await (const event of store.readAll()) {
      count++;
      lastRevisionSum += event.revision;
    }
    const seconds = nowSeconds() - t;
    if (count !== READ_LOG || warm !== 20_000 || lastRevisionSum < 0n) throw new Error(`readAll read ${count} events`);
    return printRate({ name: 'readAll (for await)', events: count, seconds, note: `page size 1000 (default)` });
  } finally {
    await store.close();
  }
}

async function catchUpScenario(path: string): Promise<number> {
  const store = new SqliteEventStore(path, { durability: DURABILITY });
  try {
    const run = async (): Promise<{ count: number; seconds: number }> => {
      const sub = store.subscribeAll({ from: 'start' });
      let count = 0;
      const t = nowSeconds();
      for await (const message of sub) {
        if (message.kind === 'caughtUp') break;
        count++;
      }
      const seconds = nowSeconds() - t;
      await sub.close();
      return { count, seconds };
    };
    // Warm-up: a short catch-up from near the end is not possible through the port without a position,
    // so warm the same code path with a full pass, then time a second one.
    await run();
    collectGarbage();
    const { count, seconds } = await run();
    if (count !== READ_LOG) throw new Error(`catch-up delivered ${count} events`);
    return printRate({ name: "catch-up subscribeAll('start')", events: count, seconds, note: 'until caughtUp' });
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// 7. Live delivery latency.

interface LiveFigures {
  p50: number;
  p99: number;
  callP50: number;
  callP99: number;
  max: number;
  negatives: number;
}

async function liveLatency(): Promise<LiveFigures> {
  return withTempDir('live', async (dir) => {
    const store = new SqliteEventStore(dbPath(dir), { durability: DURABILITY });
    const sub = store.subscribeAll({ from: 'end' });
    try {
      const iterator = sub[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done || first.value.kind !== 'caughtUp') throw new Error('expected caughtUp first');

      const total = LIVE_WARMUP + LIVE_N;
      const tCall = new Float64Array(total);
      const tResolved = new Float64Array(total);
      const tDelivered = new Float64Array(total);
      let waiting = null as { revision: number; resolve: () => void } | null;

      const consumer = (async () => {
        for (;;) {
          const r = await iterator.next();
          if (r.done) return;
          if (r.value.kind !== 'event') continue;
          const revision = Number(r.value.event.revision);
          tDelivered[revision] = performance.now();
          if (waiting && revision >= waiting.revision) {
            const w = waiting;
            waiting = null;
            w.resolve();
          }
        }
      })();

      // One stream, one append at a time; each waits for its delivery before the next is called, so
      // the figure is pure delivery latency with no queueing behind earlier events.
      let expected: ExpectedRevision = 'no_stream';
      for (let i = 0; i < total; i++) {
        const delivered = new Promise<void>((resolve) => {
          waiting = { revision: i, resolve };
        });
        tCall[i] = performance.now();
        const result = await store.append('live-0', [makeEvent(i)], { expected });
        tResolved[i] = performance.now();
        expected = result.nextExpectedRevision;
        await delivered;
      }

      const resolvedToDeliver: number[] = [];
      const callToDeliver: number[] = [];
      let negatives = 0;
      for (let i = LIVE_WARMUP; i < total; i++) {
        // The store pushes to live subscribers inside its commit step (`flush` -> `publishLocal`), in the
        // same synchronous run that resolves the append's promise. The appender's `await` and the
        // subscriber's `next()` then both resume from the microtask queue, in an order that depends on
        // how many promise hops each side has, so t1 can come before t0. Such a delivery had no delay
        // after the acknowledgement: count it as 0.
        const d = tDelivered[i]! - tResolved[i]!;
        if (d < 0) negatives++;
        resolvedToDeliver.push(Math.max(0, d));
        callToDeliver.push(tDelivered[i]! - tCall[i]!);
      }
      const a = sortedCopy(resolvedToDeliver);
      const c = sortedCopy(callToDeliver);
      const figures: LiveFigures = {
        p50: percentile(a, 50),
        p99: percentile(a, 99),
        max: a[a.length - 1]!,
        callP50: percentile(c, 50),
        callP99: percentile(c, 99),
        negatives,
      };
      printLine(
        'live: append resolved -> delivered',
        `n=${LIVE_N}  p50=${figures.p50.toFixed(4)} ms  p99=${figures.p99.toFixed(4)} ms  max=${figures.max.toFixed(3)} ms` +
          `  (${negatives} delivered before the append resumed, counted as 0)`,
      );
      printLine(
        'live: append called -> delivered',
        `n=${LIVE_N}  p50=${figures.callP50.toFixed(4)} ms  p99=${figures.callP99.toFixed(4)} ms  max=${c[c.length - 1]!.toFixed(3)} ms`,
      );
      await sub.close();
      await consumer;
      return figures;
    } finally {
      await sub.close();
      await store.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------------

/**
 * `node dist/bench/store.bench.js [scenario...]` runs only the named scenarios (for profiling one at a
 * time); the JSON line then holds null for the figures not measured. Names: baseline, bare, batched,
 * single, concurrent, read (readAll + catch-up), live.
 */
const SCENARIOS = ['baseline', 'bare', 'batched', 'single', 'concurrent', 'read', 'live'] as const;

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  for (const name of asked) {
    if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`Unknown scenario ${name}: use ${SCENARIOS.join(', ')}`);
  }
  const runs = (name: (typeof SCENARIOS)[number]): boolean => asked.length === 0 || asked.includes(name);
  const started = nowSeconds();
  console.log(
    `SQLite event store bench: node ${process.version}, durability=${DURABILITY}, ` +
      `gc ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'exposed' : 'NOT exposed'}`,
  );
  printHeader();

  const step = async <T>(name: (typeof SCENARIOS)[number], body: () => Promise<T>): Promise<T | null> => {
    if (!runs(name)) return null;
    collectGarbage();
    return body();
  };
  // Ratios need the baseline; when it is skipped they are left out.
  const baselineEventsPerSec = await step('baseline', () => baseline(false));
  const ref = baselineEventsPerSec ?? undefined;
  const bareEventsPerSec = await step('bare', () => baseline(true));
  const batchedEventsPerSec = await step('batched', () => batchedAppends(ref));
  const singleEventsPerSec = await step('single', () => singleAppends(ref));
  const concurrentEventsPerSec = await step('concurrent', () => concurrentAppends(ref));
  const read = await step('read', () =>
    withTempDir('read', async (dir) => {
      const t = nowSeconds();
      await seedLog(dbPath(dir));
      printLine('(seeded read log)', `${READ_LOG.toLocaleString('en-US')} events in ${(nowSeconds() - t).toFixed(3)} s`);
      collectGarbage();
      const readAllEventsPerSec = await readAllScenario(dbPath(dir));
      collectGarbage();
      const catchUpEventsPerSec = await catchUpScenario(dbPath(dir));
      return { readAllEventsPerSec, catchUpEventsPerSec };
    }),
  );
  const live = await step('live', liveLatency);

  const batchedRatio =
    batchedEventsPerSec !== null && baselineEventsPerSec !== null ? batchedEventsPerSec / baselineEventsPerSec : null;
  const int = (v: number | null | undefined): number | null => (v == null ? null : Math.round(v));
  const ms = (v: number | null | undefined): number | null => (v == null ? null : round(v, 4));
  const meets = (v: number | null | undefined, ok: (v: number) => boolean): boolean | null => (v == null ? null : ok(v));
  console.log(`total ${(nowSeconds() - started).toFixed(1)} s`);
  console.log(
    JSON.stringify({
      baselineEventsPerSec: int(baselineEventsPerSec),
      bareTableEventsPerSec: int(bareEventsPerSec),
      batchedEventsPerSec: int(batchedEventsPerSec),
      batchedRatio: batchedRatio === null ? null : round(batchedRatio, 3),
      singleEventsPerSec: int(singleEventsPerSec),
      concurrentEventsPerSec: int(concurrentEventsPerSec),
      readAllEventsPerSec: int(read?.readAllEventsPerSec),
      catchUpEventsPerSec: int(read?.catchUpEventsPerSec),
      liveP50Ms: ms(live?.p50),
      liveP99Ms: ms(live?.p99),
      liveCallToDeliverP50Ms: ms(live?.callP50),
      liveCallToDeliverP99Ms: ms(live?.callP99),
      targets: {
        batchedRatio: meets(batchedRatio, (v) => v >= TARGET.batchedRatio),
        concurrent: meets(concurrentEventsPerSec, (v) => v >= TARGET.concurrent),
        readAll: meets(read?.readAllEventsPerSec, (v) => v >= TARGET.readAll),
        liveP99: meets(live?.p99, (v) => v <= TARGET.liveP99Ms),
      },
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
