/** Reading and appending an account's stream for the secret and provider commands. */
import type { Logger } from '@nestjs/common';
import type { EventLog, NewEvent } from '../../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../events/store/errors.js';
import type { Position } from '../../events/store/position.js';
import { ApiError } from '../../protocol/api-error.js';
import { ProjectionTimeoutError, type ProjectionService } from '../../projections/projection-service.js';
import { eventContextOf, eventIdFor } from '../action-context.js';
import type { ActionContext } from '../action-registry.js';
import { evolveCredentials, NO_CREDENTIALS, type CredentialsState } from './credentials.js';

/** Decisions made again after losing a race with another append to the account's stream. */
export const MAX_ATTEMPTS = 3;

export const accountStream = (account: string): string => `account-${account}`;

/** The account's secrets and providers as its stream has them, and the revision they were read at. */
export async function loadCredentials(
  log: EventLog,
  account: string,
): Promise<{ state: CredentialsState; revision: bigint | 'no_stream' }> {
  let state = NO_CREDENTIALS;
  let revision: bigint | 'no_stream' = 'no_stream';
  try {
    for await (const event of log.readStream(accountStream(account))) {
      state = evolveCredentials(state, event);
      revision = event.revision;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return { state, revision };
}

/**
 * Appends a decision at the revision it was made against, stamped `at`. Null when another append to
 * the stream came first: the caller decides again on what is there now.
 */
export async function appendDecision(
  log: EventLog,
  context: ActionContext,
  revision: bigint | 'no_stream',
  events: readonly NewEvent[],
  at: number,
): Promise<Position | null> {
  try {
    const { position } = await log.append(
      accountStream(context.account),
      events.map((event, index) => ({ ...event, id: eventIdFor(context, index) })),
      { ...eventContextOf(context), at },
      { expected: revision },
    );
    return position;
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return null;
    throw error;
  }
}

export function keptChanging(account: string, what: string): ApiError {
  return new ApiError(409, `The account ${account} kept changing while ${what}; retry`);
}

/** The state after `events` are appended at `at`: what the response describes. */
export function afterAppend(state: CredentialsState, events: readonly NewEvent[], at: number): CredentialsState {
  return events.reduce((s, event) => evolveCredentials(s, { ...event, metadata: { at } }), state);
}

/**
 * Read-your-writes for the account's read models. A timeout is no failure of the action — it is
 * recorded, only the read model lags — so it is answered as done rather than as a 500 that would
 * invite a retry of something already done.
 */
export async function awaitProjections(
  projections: ProjectionService,
  position: Position,
  eventTypes: readonly string[],
  logger: Logger,
): Promise<void> {
  try {
    await projections.waitFor(position, { eventTypes });
  } catch (error) {
    if (!(error instanceof ProjectionTimeoutError)) throw error;
    logger.warn(error.message);
  }
}
