/** Reading and appending an account's stream for the secret and provider commands. */
import type { EventLog, NewEvent } from '../../events/event-log.js';
import type { Position } from '../../events/store/position.js';
import { ApiError } from '../../protocol/api-error.js';
import { appendDecision as appendToStream, keptChanging as changing, loadStream } from '../stream-decisions.js';
import type { ActionContext } from '../action-registry.js';
import { evolveCredentials, NO_CREDENTIALS, type CredentialsState } from './credentials.js';

export const accountStream = (account: string): string => `account-${account}`;

/** The account's secrets and providers as its stream has them, and the revision they were read at. */
export function loadCredentials(
  log: EventLog,
  account: string,
): Promise<{ state: CredentialsState; revision: bigint | 'no_stream' }> {
  return loadStream(log, accountStream(account), NO_CREDENTIALS, evolveCredentials);
}

/** Appends a decision to the acting account's stream; null when another append came first. */
export function appendDecision(
  log: EventLog,
  context: ActionContext,
  revision: bigint | 'no_stream',
  events: readonly NewEvent[],
  at: number,
): Promise<Position | null> {
  return appendToStream(log, context, accountStream(context.account), revision, events, at);
}

export function keptChanging(account: string, what: string): ApiError {
  return changing(`The account ${account}`, what);
}

/** The state after `events` are appended at `at`: what the response describes. */
export function afterAppend(state: CredentialsState, events: readonly NewEvent[], at: number): CredentialsState {
  return events.reduce((s, event) => evolveCredentials(s, { ...event, metadata: { at } }), state);
}
