/** Reading and appending a run's `run-<id>` stream. */
import type { EventContext } from '../../events/catalog/metadata.js';
import type { EventLog, NewEvent } from '../../events/event-log.js';
import { WrongExpectedVersionError } from '../../events/store/errors.js';
import type { Position } from '../../events/store/position.js';
import { eventContextOf, eventIdFor } from '../action-context.js';
import type { ActionContext } from '../action-registry.js';
import { loadStream, MAX_ATTEMPTS } from '../stream-decisions.js';
import { evolveRun, type RunState } from './run-state.js';

export const runStream = (runId: string): string => `run-${runId}`;

export async function loadRun(log: EventLog, runId: string): Promise<{ run: RunState | null; revision: bigint | 'no_stream' }> {
  const { state, revision } = await loadStream<RunState | null>(log, runStream(runId), null, (run, event) => evolveRun(run, event, runId));
  return { run: state, revision };
}

/** Who a run decision is appended as, and the ids its events get. */
export interface RunStamp {
  context: EventContext;
  eventId: (stream: string, index: number) => string;
}

/** A signed action's stamp: its account and signer, ids derived from the request. */
export function actionStamp(context: ActionContext): RunStamp {
  return { context: eventContextOf(context), eventId: (stream, index) => eventIdFor(context, stream, index) };
}

/**
 * Decides against the run's stream and appends, deciding again when another append came first (a
 * claim or a finish racing a cancel). The run as it stands after, and where the decision landed —
 * null when it decided nothing.
 */
export async function decideOnRun(
  log: EventLog,
  stamp: RunStamp,
  runId: string,
  decide: (run: RunState | null, now: number) => NewEvent[],
): Promise<{ run: RunState | null; position: Position | null }> {
  for (let attempt = 1; ; attempt++) {
    const { run, revision } = await loadRun(log, runId);
    const at = Date.now();
    const events = decide(run, at);
    if (!events.length) return { run, position: null };
    try {
      const { position } = await log.append(
        runStream(runId),
        events.map((event, index) => ({ ...event, id: stamp.eventId(runStream(runId), index) })),
        { ...stamp.context, at },
        { expected: revision },
      );
      const after = events.reduce<RunState | null>((state, event) => evolveRun(state, { ...event, metadata: { at } }, runId), run);
      return { run: after, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt === MAX_ATTEMPTS) throw error;
    }
  }
}
