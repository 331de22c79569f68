import { WrongExpectedVersionError } from './errors.js';
import type { ExpectedRevision } from './types.js';

/** A stream as the expected-revision check sees it. `lastRevision` is -1n before any event. */
export interface StreamVersion {
  lastRevision: bigint;
  softDeleted: boolean;
}

/**
 * Throws unless `expected` matches. A soft-deleted stream reads as absent, so `no_stream` reopens it
 * and `exists` is refused; its exact last revision still matches, as in KurrentDB, where revisions
 * continue after a soft delete.
 */
export function assertExpectedRevision(stream: string, expected: ExpectedRevision, current: StreamVersion): void {
  const exists = current.lastRevision >= 0n && !current.softDeleted;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && !exists) ||
    (expected === 'exists' && exists) ||
    (typeof expected === 'bigint' && expected === current.lastRevision);
  if (!ok) {
    throw new WrongExpectedVersionError(stream, expected, current.lastRevision < 0n ? 'no_stream' : current.lastRevision);
  }
}
