/**
 * Lifecycle events of `run-<runId>` streams. Every agent turn is a run; the queue is a projection of
 * the runs whose last event left them runnable.
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
  run('RunCanceled', 'The run was canceled before it finished; nothing it does afterwards counts.'),
];
