import { InvalidAppendError } from './errors.js';
import type { AllFilter } from './types.js';

export interface EventKey {
  stream: string;
  type: string;
}

/** Checks a filter's shape once and returns a predicate; null means "everything". */
export function compileFilter(filter: AllFilter | undefined): ((event: EventKey) => boolean) | null {
  if (filter === undefined) return null;
  const known = new Set(['streamPrefixes', 'eventTypes']);
  for (const key of Object.keys(filter)) {
    if (!known.has(key)) {
      throw new InvalidAppendError(`Unknown filter key "${key}"; accepted keys are streamPrefixes and eventTypes`);
    }
  }
  const prefixes = checkList(filter.streamPrefixes, 'streamPrefixes');
  const types = checkList(filter.eventTypes, 'eventTypes');
  if (!prefixes && !types) return null;
  const typeSet = types ? new Set(types) : null;
  return (event) =>
    (!prefixes || prefixes.some((p) => event.stream.startsWith(p))) && (!typeSet || typeSet.has(event.type));
}

function checkList(list: readonly string[] | undefined, name: string): readonly string[] | null {
  if (list === undefined) return null;
  if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new InvalidAppendError(`Filter ${name} must be a non-empty array of non-empty strings`);
  }
  return list;
}
