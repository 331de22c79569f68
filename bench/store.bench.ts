/**
 * Throughput and latency of the embedded SQLite event store, against a raw better-sqlite3 baseline,
 * all in one run on one machine. Timings are printed, never asserted. The last line of output is a
 * single JSON object with the figures and whether each meets its target.
 *
 *   npm run bench:store
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSchema, type Durability } from '../src/events/store/sqlite/schema.js';
import { SqliteEventStore } from '../src/events/store/sqlite/sqlite-event-store.js';
import type { ExpectedRevision } from '../src/events/store/types.js';
import { EVENT_TYPE, eventData, eventMetadata, makeEvent, makeEvents, streamName } from './lib/events.js';
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
const WRITE_WARMUP = 20_000;
const WRITE_EVENTS = 400_000;
const SINGLE_WARMUP = 2_000;
const SINGLE_EVENTS = 40_000;
const APPENDERS = 100;
const CONCURRENT_WARMUP_EACH = 50;
const CONCURRENT_EACH = 1_000;
const READ_LOG = 300_000;
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
        randomUUID(),
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
      if (bare) db.exec('DROP INDEX events_by_stream; DROP INDEX events_by_id;');
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

async function batchedAppends(baselineRate: number): Promise<number> {
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

async function singleAppends(baselineRate: number): Promise<number> {
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

async function concurrentAppends(baselineRate: number): Promise<number> {
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
    const seedBatch = 500;
    const next: ExpectedRevision[] = new Array(STREAMS).fill('no_stream');
    for (let b = 0; b < READ_LOG / seedBatch; b++) {
      const s = b % STREAMS;
      const result = await store.append(streamName('r', s), makeEvents(b * seedBatch, seedBatch), { expected: next[s]! });
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

async function main(): Promise<void> {
  const started = nowSeconds();
  console.log(
    `SQLite event store bench: node ${process.version}, durability=${DURABILITY}, ` +
      `gc ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'exposed' : 'NOT exposed'}`,
  );
  printHeader();

  collectGarbage();
  const baselineEventsPerSec = await baseline(false);
  collectGarbage();
  const bareEventsPerSec = await baseline(true);
  collectGarbage();
  const batchedEventsPerSec = await batchedAppends(baselineEventsPerSec);
  collectGarbage();
  const singleEventsPerSec = await singleAppends(baselineEventsPerSec);
  collectGarbage();
  const concurrentEventsPerSec = await concurrentAppends(baselineEventsPerSec);
  collectGarbage();

  const { readAllEventsPerSec, catchUpEventsPerSec } = await withTempDir('read', async (dir) => {
    const t = nowSeconds();
    await seedLog(dbPath(dir));
    printLine('(seeded read log)', `${READ_LOG.toLocaleString('en-US')} events in ${(nowSeconds() - t).toFixed(3)} s`);
    collectGarbage();
    const readAllEventsPerSec = await readAllScenario(dbPath(dir));
    collectGarbage();
    const catchUpEventsPerSec = await catchUpScenario(dbPath(dir));
    return { readAllEventsPerSec, catchUpEventsPerSec };
  });
  collectGarbage();
  const live = await liveLatency();

  const batchedRatio = batchedEventsPerSec / baselineEventsPerSec;
  console.log(`total ${(nowSeconds() - started).toFixed(1)} s`);
  console.log(
    JSON.stringify({
      baselineEventsPerSec: Math.round(baselineEventsPerSec),
      bareTableEventsPerSec: Math.round(bareEventsPerSec),
      batchedEventsPerSec: Math.round(batchedEventsPerSec),
      batchedRatio: round(batchedRatio, 3),
      singleEventsPerSec: Math.round(singleEventsPerSec),
      concurrentEventsPerSec: Math.round(concurrentEventsPerSec),
      readAllEventsPerSec: Math.round(readAllEventsPerSec),
      catchUpEventsPerSec: Math.round(catchUpEventsPerSec),
      liveP50Ms: round(live.p50, 4),
      liveP99Ms: round(live.p99, 4),
      liveCallToDeliverP50Ms: round(live.callP50, 4),
      liveCallToDeliverP99Ms: round(live.callP99, 4),
      targets: {
        batchedRatio: batchedRatio >= TARGET.batchedRatio,
        concurrent: concurrentEventsPerSec >= TARGET.concurrent,
        readAll: readAllEventsPerSec >= TARGET.readAll,
        liveP99: live.p99 <= TARGET.liveP99Ms,
      },
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
