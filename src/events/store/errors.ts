import type { ExpectedRevision } from './types.js';

/** Base of every error the store port throws, so callers can tell store refusals from bugs. */
export class EventStoreError extends Error {
  override name = 'EventStoreError';
}

export function describeExpected(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? `revision ${expected}` : expected;
}

/** `actual` is the stream's last revision, or `no_stream` when it does not exist. */
export class WrongExpectedVersionError extends EventStoreError {
  override name = 'WrongExpectedVersionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(
      `Wrong expected version on stream "${stream}": expected ${describeExpected(expected)}, ` +
        `actual ${actual === 'no_stream' ? 'no_stream' : `revision ${actual}`}`,
    );
  }
}

export class StreamNotFoundError extends EventStoreError {
  override name = 'StreamNotFoundError';
  constructor(readonly stream: string) {
    super(`Stream "${stream}" was not found`);
  }
}

/** The stream was tombstoned: it can never be read or written again. */
export class StreamDeletedError extends EventStoreError {
  override name = 'StreamDeletedError';
  constructor(readonly stream: string) {
    super(`Stream "${stream}" is permanently deleted (tombstoned) and cannot be read or written`);
  }
}

/** Bad input to the port: a bad stream name, event, option or size. Nothing was written. */
export class InvalidAppendError extends EventStoreError {
  override name = 'InvalidAppendError';
}

/** A retried append reused event ids that do not match what was stored under them. */
export class DuplicateEventIdError extends EventStoreError {
  override name = 'DuplicateEventIdError';
  constructor(
    readonly stream: string,
    readonly eventId: string,
  ) {
    super(
      `Event id ${eventId} was already appended, but not as part of this same append to "${stream}": ` +
        'a retry must resend exactly the same events with the same ids',
    );
  }
}

/** The store cannot be reached (KurrentDB down, gRPC code 14) or is closed. Safe to retry. */
export class StoreUnavailableError extends EventStoreError {
  override name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
