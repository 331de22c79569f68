/** Conversions between the port's shapes and @eventstore/db-client's. */
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AppendExpectedRevision,
  type Filter,
  type RecordedEvent as ClientRecordedEvent,
} from '@eventstore/db-client';
import { EventStoreError, InvalidAppendError } from '../errors.js';
import { position, type Position } from '../position.js';
import type { AllFilter, ExpectedRevision, JsonObject, JsonValue, RecordedEvent, StreamMetadata } from '../types.js';

/** KurrentDB writes this `$tb` on a soft delete: long.MaxValue, which JSON.parse rounds up. */
const SOFT_DELETED_TRUNCATE_BEFORE = 9_223_372_036_854_775_807n;

export function toClientExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

/** System streams (`$…`) and system event types (`$…`, including `$>` links) never reach callers. */
export function isSystemEvent(event: { streamId: string; type: string }): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

export function toPosition(p: { commit: bigint; prepare: bigint }): Position {
  return position(p.commit, p.prepare);
}

export function toRecordedEvent(event: ClientRecordedEvent): RecordedEvent {
  const where = `event ${event.id} (revision ${event.revision} of "${event.streamId}")`;
  if (!event.position) {
    throw new EventStoreError(`KurrentDB sent ${where} without its position: servers before 22.6 are not supported`);
  }
  if (!event.isJson) {
    throw new EventStoreError(`KurrentDB sent ${where} with binary data: this store reads JSON events only`);
  }
  const metadata = event.metadata ?? {};
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata) || metadata instanceof Uint8Array) {
    throw new EventStoreError(`KurrentDB sent ${where} with metadata that is not a JSON object`);
  }
  return {
    id: event.id.toLowerCase(),
    stream: event.streamId,
    type: event.type,
    revision: event.revision,
    position: toPosition(event.position),
    data: event.data as JsonValue,
    metadata: metadata as JsonObject,
    created: event.created.getTime(),
  };
}

/**
 * The server-side half of an AllFilter: KurrentDB filters on stream names or on event types, not
 * both, so callers still apply the whole filter (and the system-event rule) to what arrives.
 */
export function serverFilter(filter: AllFilter | undefined): Filter {
  if (filter?.streamPrefixes) return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  if (filter?.eventTypes) return eventTypeFilter({ regex: exactTypesRegex(filter.eventTypes) });
  return excludeSystemEvents();
}

/** A .NET regex matching exactly these types: every character that means something there is escaped. */
export function exactTypesRegex(types: readonly string[]): string {
  return `^(?:${types.map((t) => t.replace(/[\\^$.|?*+()[\]{}#\s]/g, '\\$&')).join('|')})$`;
}

/** The `$$stream` event body KurrentDB enforces: system keys `$maxCount`, `$maxAge`, `$tb`, custom keys beside them. */
export function toKurrentMetadata(metadata: StreamMetadata): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(metadata.custom ?? {})) {
    if (key.startsWith('$')) {
      throw new InvalidAppendError(
        `Stream metadata custom key "${key}" starts with "$", which KurrentDB reserves for its own settings`,
      );
    }
    out[key] = value;
  }
  if (metadata.maxCount !== undefined) out.$maxCount = metadata.maxCount;
  if (metadata.maxAge !== undefined) out.$maxAge = metadata.maxAge;
  if (metadata.truncateBefore !== undefined) {
    if (metadata.truncateBefore > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new InvalidAppendError(
        `Stream metadata truncateBefore ${metadata.truncateBefore}n is above ${Number.MAX_SAFE_INTEGER}, ` +
          'the largest revision KurrentDB metadata (JSON numbers) can carry exactly',
      );
    }
    out.$tb = Number(metadata.truncateBefore);
  }
  return out;
}

/** Reads `$$stream` JSON back; `$`-keys the port has no field for (ACLs, cache control) are left out. */
export function fromKurrentMetadata(json: JsonObject): StreamMetadata {
  const out: StreamMetadata = {};
  const custom: JsonObject = {};
  for (const [key, value] of Object.entries(json)) {
    if (!key.startsWith('$')) custom[key] = value;
  }
  if (typeof json.$maxCount === 'number') out.maxCount = json.$maxCount;
  if (typeof json.$maxAge === 'number') out.maxAge = json.$maxAge;
  if (typeof json.$tb === 'number' && Number.isInteger(json.$tb)) {
    out.truncateBefore = json.$tb >= 2 ** 63 ? SOFT_DELETED_TRUNCATE_BEFORE : BigInt(json.$tb);
  }
  if (Object.keys(custom).length > 0) out.custom = custom;
  return out;
}
