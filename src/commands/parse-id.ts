import { ApiError } from '../protocol/api-error.js';
import { describe } from './accounts/credentials-input.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The ids agents, sessions and runs get: lower-case UUIDs. `what` says which, e.g. "an agent id as CreateAgent answered it". */
export function parseUuid(value: unknown, field: string, what: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new ApiError(400, `${field} must be ${what} (a lower-case UUID), got ${describe(value)}`);
  return value;
}
