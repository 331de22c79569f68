import { ApiError } from '../protocol/api-error.js';
import { describe } from './accounts/credentials-input.js';

/** A list's `limit`: `fallback` when absent, otherwise clamped to 1–`max` (the spec clamps rather than refuses). */
export function parseLimit(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ApiError(400, `${field} must be a number (it is clamped to 1–${max}), got ${describe(value)}`);
  }
  return Math.min(max, Math.max(1, Math.floor(value)));
}
