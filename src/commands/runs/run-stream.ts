/** Reading and appending a run's `run-<id>` stream. */
import type { EventLog } from '../../events/event-log.js';
import type { Position } from '../../events/store/position.js';
import type { ActionContext } from '../action-registry.js';
import { appendDecision, loadStream, MAX_ATTEMPTS } from '../stream-decisions.js';
import { evolveRun, type RunState } from './run-state.js';
import type { NewEvent } from '../../events/event-log.js';

export const runStream = (runId: string): string => `run-${runId}`;

export async function loadRun(log: EventLog, runId: string): Promise<{ run: RunState | null; revision: bigint | 'no_stream' }> {
  const { state, revision } = await loadStream<RunState | null>(log, runStream(runId), null, (run, event) => evolveRun(run, event, runId));
  return { run: state, revision };
}

/**
 * Decides against the run's stream and appends, deciding again when another append came first (a
 * claim or a finish racing a cancel). Returns where the decision landed, or null when it decided nothing.
 */
export async function decideOnRun(
  log: EventLog,
  context: ActionContext,
  runId: string,
  decide: (run: RunState | null) => NewEvent[],
): Promise<Position | null> {
  for (let attempt = 1; ; attempt++) {
    const { run, revision } = await loadRun(log, runId);
    const events = decide(run);
    if (!events.length) return null;
    const position = await appendDecision(log, context, runStream(runId), revision, events, Date.now());
    if (position !== null) return position;
    if (attempt === MAX_ATTEMPTS) throw new Error(`Run ${runId} kept changing while a decision was appended to it`);
  }
}
