/**
 * Rebuild throughput of the session view projection over a 1,000,000-event log, against the store's
 * raw readAll rate measured in the same run. Peak RSS is sampled during the rebuild.
 *
 *   npm run bench:rebuild            (EVENTS=200000 npm run bench:rebuild for a quicker look)
 *
 * The last line is one JSON object: events, rebuildEventsPerSec, readAllEventsPerSec, ratio, peakRssMb.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventLog, type NewEvent } from '../src/events/event-log.js';
import { SqliteEventStore } from '../src/events/store/sqlite/sqlite-event-store.js';
import { collectGarbage, nowSeconds, printHeader, printLine, printRate, round } from './lib/stats.js';
import { withTempDir } from './lib/tmp.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const PER_SESSION = 100;
const BATCH = 50;

/** A turn's worth of Log events: user message, tool call, tool result, assistant reply, in a loop. */
function logEvents(firstSeq: number, count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i): NewEvent => {
    const seq = firstSeq + i;
    const metadata = { seq, actor: seq % 4 === 1 ? ('user' as const) : ('agent' as const) };
    switch (seq % 4) {
      case 1:
        return { type: 'message', data: { role: 'user', content: `Please summarise document ${seq} for me.` }, metadata };
      case 2:
        return { type: 'tool_call', data: { id: `call-${seq}`, name: 'read', input: { address: `hm://z6Mk/doc-${seq}` } }, metadata };
      case 3:
        return {
          type: 'tool_result',
          data: { toolCallId: `call-${seq - 1}`, name: 'read', output: { title: `Doc ${seq}`, words: 1200 + seq } },
          metadata,
        };
      default:
        return {
          type: 'message',
          data: { role: 'assistant', content: `Document ${seq} argues that event logs make audits cheap.`, meta: { model: 'm', durationMs: 812 } },
          metadata,
        };
    }
  });
}

async function seed(log: EventLog): Promise<void> {
  const context = { actor: 'agent' as const, accountId: 'z6MkBench', causationId: 'bench', correlationId: 'bench' };
  const sessions = Math.ceil(EVENTS / PER_SESSION);
  let written = 0;
  const started = nowSeconds();
  for (let s = 0; s < sessions && written < EVENTS; s++) {
    for (let seq = 1; seq <= PER_SESSION && written < EVENTS; seq += BATCH) {
      const count = Math.min(BATCH, PER_SESSION - seq + 1, EVENTS - written);
      await log.append(`session-${s}`, logEvents(seq, count), context);
      written += count;
    }
  }
  printRate({ name: 'seed log (EventLog.append, 50/call)', events: written, seconds: nowSeconds() - started });
}

async function readAllRate(log: EventLog): Promise<number> {
  collectGarbage();
  const started = nowSeconds();
  let n = 0;
  for await (const event of log.store.readAll()) if (event) n++;
  return printRate({ name: 'raw store.readAll', events: n, seconds: nowSeconds() - started });
}

/** Runs the rebuild in a process of its own, between the two readAll passes, never beside them. */
function rebuildInChild(dir: string): { seconds: number; counted: number; peakRssMb: number } {
  const script = fileURLToPath(new URL('./rebuild-child.js', import.meta.url));
  const result = spawnSync(process.execPath, ['--no-node-snapshot', script, dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`rebuild child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  await withTempDir('rebuild', async (dir) => {
    const store = new SqliteEventStore(join(dir, 'events.db'));
    const log = new EventLog(store);
    printHeader();
    await seed(log);
    const before = await readAllRate(log);

    const { seconds, counted, peakRssMb } = rebuildInChild(dir);
    const after = await readAllRate(log);
    await store.close();
    const readAll = (before + after) / 2;
    const rebuild = printRate({ name: 'rebuild session_view (own process)', events: EVENTS, seconds, baseline: readAll });
    printLine('Log events counted by the view', counted.toLocaleString('en-US'));
    printLine('peak RSS of the rebuild process', `${round(peakRssMb, 1)} MB`);
    if (counted !== EVENTS) throw new Error(`rebuild counted ${counted} Log events of ${EVENTS}`);

    const ratio = rebuild / readAll;
    console.log(
      JSON.stringify({
        events: EVENTS,
        rebuildEventsPerSec: Math.round(rebuild),
        readAllEventsPerSec: Math.round(readAll),
        ratio: round(ratio, 3),
        peakRssMb: round(peakRssMb, 1),
        targets: { ratioAtLeastHalf: ratio >= 0.5, peakRssAtMost400Mb: peakRssMb <= 400 },
      }),
    );
  });
}

await main();
