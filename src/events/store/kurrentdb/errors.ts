/**
 * Turns what @eventstore/db-client throws into the port's errors, so callers handle KurrentDB and
 * SQLite refusals with the same `instanceof` checks.
 */
import {
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  StreamDeletedError as ClientStreamDeletedError,
  StreamNotFoundError as ClientStreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError as ClientWrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  DuplicateEventIdError,
  InvalidAppendError,
  StoreUnavailableError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors.js';
import type { ExpectedRevision } from '../types.js';

// gRPC status codes, as @grpc/grpc-js numbers them (that package is not our dependency).
const GRPC_CANCELLED = 1;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_UNAVAILABLE = 14;

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
]);

export interface ErrorContext {
  /** The server as `describeServer` names it: goes into StoreUnavailableError messages. */
  server: string;
  /** The stream the operation addressed; a `$$name` metastream stands for the stream `name`. */
  stream?: string;
  expected?: ExpectedRevision;
  /** The append's first event id: names the event in a DuplicateEventIdError. */
  firstEventId?: string;
}

/** `esdb://user:pass@host:2113?tls=false` → `esdb://host:2113`: messages must never carry credentials. */
export function describeServer(connectionString: string): string {
  const withoutQuery = connectionString.split('?')[0]!;
  return withoutQuery.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}

/** Maps a client or gRPC error to the port's error; anything unrecognised is returned unchanged. */
export function mapKurrentError(error: unknown, context: ErrorContext): unknown {
  if (error instanceof ClientWrongExpectedVersionError) return mapWrongExpectedVersion(error, context);
  if (error instanceof ClientStreamDeletedError) {
    return new StreamDeletedError(originalStream(context.stream ?? error.streamName));
  }
  if (error instanceof ClientStreamNotFoundError) {
    return new StreamNotFoundError(originalStream(context.stream ?? error.streamName));
  }
  if (error instanceof MaxAppendSizeExceededError) {
    return new InvalidAppendError(
      `KurrentDB at ${context.server} refused the append to "${context.stream}": it exceeds the server's ` +
        `maximum append size of ${error.maxAppendSize} bytes`,
    );
  }
  if (isUnavailable(error)) {
    return new StoreUnavailableError(
      `KurrentDB at ${context.server} is unavailable (${describeCause(error)}); the operation may be retried`,
      { cause: error },
    );
  }
  return error;
}

function mapWrongExpectedVersion(error: ClientWrongExpectedVersionError, context: ErrorContext): unknown {
  const stream = context.stream ?? error.streamName;
  const expected = context.expected ?? 'any';
  const actual = error.actualVersion;
  // With `any`, or `exists` on a stream that exists, KurrentDB only answers "wrong expected version"
  // when the append's first ids were already written there and the rest differ (its "corrupted
  // idempotency"): the SQLite store's DuplicateEventIdError.
  const duplicate = expected === 'any' || (expected === 'exists' && actual !== 'no_stream');
  if (duplicate && context.firstEventId !== undefined) return new DuplicateEventIdError(stream, context.firstEventId);
  return new WrongExpectedVersionError(stream, expected, actual);
}

function isUnavailable(error: unknown): boolean {
  if (
    error instanceof UnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof NotLeaderError ||
    error instanceof CancelledError
  ) {
    return true;
  }
  if (error === null || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  // Some client paths (a unary append without a connection) reject with the raw gRPC error.
  if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) return true;
  if (code === GRPC_CANCELLED) return (error as { details?: unknown }).details !== 'Cancelled on client';
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  // Cluster discovery gives up with a plain Error once every gossip seed failed.
  return error instanceof Error && /^Failed to discover after \d+ attempts/.test(error.message);
}

function describeCause(error: unknown): string {
  const details = (error as { details?: unknown; message?: unknown }).details;
  if (typeof details === 'string' && details.length > 0) return details;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.length > 0 ? message : String(error);
}

/** Port stream names never start with `$`, so a `$$name` in a context is always name's metastream. */
function originalStream(stream: string): string {
  return stream.startsWith('$$') ? stream.slice(2) : stream;
}
