/**
 * The rebuild half of bench/rebuild.bench.ts, in a process of its own so that its peak RSS is the
 * rebuild's alone (not the seeding's or the readAll passes'). Prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventLog } from '../src/events/event-log.js';
import { SqliteEventStore } from '../src/events/store/sqlite/sqlite-event-store.js';
import { ProjectionService } from '../src/projections/projection-service.js';
import { ReadModelDb } from '../src/projections/read-model-db.js';
import { sessionViewProjection } from '../src/projections/session-view.projection.js';

const dir = process.argv[2]!;
const store = new SqliteEventStore(join(dir, 'events.db'));
const readModels = new ReadModelDb(join(dir, 'readmodels.db'));
const service = new ProjectionService(new EventLog(store), readModels, [sessionViewProjection], {
  log: () => {},
  error: console.error,
});
const started = performance.now();
await service.rebuild('session_view');
const seconds = (performance.now() - started) / 1000;
await service.stop();
const counted = (readModels.db.prepare('SELECT SUM(last_seq) AS n FROM p_session_view_g2_sessions').get() as { n: number }).n;
readModels.close();
await store.close();
// VmHWM: the most resident memory this process (with its writer thread) ever had.
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
console.log(JSON.stringify({ seconds, counted, peakRssMb: hwm ? Number(hwm[1]) / 1024 : null }));
