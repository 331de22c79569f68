/**
 * Lifecycle events of `run-<runId>` streams. Every agent turn is a run; the queue is a projection of
 * the runs whose last event left them runnable. A claim is an append at the run stream's expected
 * revision, so across processes exactly one claimer wins.
 */
import type { EventDefinition } from './event-definition.js';

const run = (type: string, description: string): EventDefinition => ({
  type,
  category: 'run',
  version: 1,
  description,
  schema: `${type}.v1.json`,
});

export const RUN_EVENTS: readonly EventDefinition[] = [
  run('RunQueued', 'A run was queued: an agent turn answering the named Log messages of a session, waiting to be claimed.'),
  run('RunClaimed', 'A server process claimed the run, holding a lease it must renew; another may claim it once the lease lapses.'),
  run('RunLeaseRenewed', 'The claiming process renewed its lease on the run.'),
  run('RunStarted', 'The claiming process started executing the run.'),
  run('RunParked', 'The run stopped to wait (for children, a timer, an event or a person) and gave up its lease.'),
  run('RunWoken', 'A parked run became runnable again and went back to the queue.'),
  run('RunAttemptFailed', 'An attempt failed with a retryable error; the run is queued again after a backoff.'),
  run('RunSucceeded', 'The run finished its work.'),
  run('RunFailed', 'The run failed for good, with an error code and message.'),
  run('RunCanceled', 'The run was canceled before it finished; nothing it does afterwards counts.'),
];
