/**
 * The shape every command handler shares: read a stream and fold it into state, decide, append the
 * decision at the revision it was made against (deciding again if another append came first).
 */
import type { Logger } from '@nestjs/common';
import type { CatalogEvent } from '../events/catalog/upcast.js';
import type { EventLog, NewEvent } from '../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../events/store/errors.js';
import type { Position } from '../events/store/position.js';
import { ApiError } from '../protocol/api-error.js';
import { ProjectionTimeoutError, type ProjectionService } from '../projections/projection-service.js';
import { eventContextOf, eventIdFor } from './action-context.js';
import type { ActionContext } from './action-registry.js';

/** Decisions made again after losing a race with another append to the same stream. */
export const MAX_ATTEMPTS = 3;

/** The stream folded into state, and the revision it was read at (`no_stream` when it has none). */
export async function loadStream<S>(
  log: EventLog,
  stream: string,
  initial: S,
  evolve: (state: S, event: CatalogEvent) => S,
): Promise<{ state: S; revision: bigint | 'no_stream' }> {
  let state = initial;
  let revision: bigint | 'no_stream' = 'no_stream';
  try {
    for await (const event of log.readStream(stream)) {
      state = evolve(state, event);
      revision = event.revision;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return { state, revision };
}

/**
 * Appends a decision at the revision it was made against, stamped `at`, with ids derived from the
 * request (so a rerun of the same request appends nothing twice). Null when another append to the
 * stream came first: the caller decides again on what is there now.
 */
export async function appendDecision(
  log: EventLog,
  context: ActionContext,
  stream: string,
  revision: bigint | 'no_stream',
  events: readonly NewEvent[],
  at: number,
): Promise<Position | null> {
  try {
    const { position } = await log.append(
      stream,
      events.map((event, index) => ({ ...event, id: eventIdFor(context, stream, index) })),
      { ...eventContextOf(context), at },
      { expected: revision },
    );
    return position;
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return null;
    throw error;
  }
}

/** The refusal when every attempt lost its race: a 409 the client may retry. */
export function keptChanging(subject: string, what: string): ApiError {
  return new ApiError(409, `${subject} kept changing while ${what}; retry`);
}

/**
 * Read-your-writes for the read models a decision feeds. A timeout is no failure of the action — it is
 * recorded, only the read model lags — so it is answered as done rather than as a 500 that would
 * invite a retry of something already done. Resolves false when the read models are still behind.
 */
export async function awaitProjections(
  projections: ProjectionService,
  position: Position,
  eventTypes: readonly string[],
  logger: Logger,
): Promise<boolean> {
  try {
    await projections.waitFor(position, { eventTypes });
    return true;
  } catch (error) {
    if (!(error instanceof ProjectionTimeoutError)) throw error;
    logger.warn(error.message);
    return false;
  }
}
