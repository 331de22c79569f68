/**
 * Input checks shared by every adapter, so each refuses the same bad input with the same words
 * before anything is written.
 */
import { InvalidAppendError } from './errors.js';
import type { EventData, ExpectedRevision, JsonObject, StreamMetadata } from './types.js';

/** KurrentDB's default maximum append size; the same bound keeps both adapters interchangeable. */
export const MAX_APPEND_BYTES = 1024 * 1024;
export const MAX_STREAM_NAME_LENGTH = 255;
export const MAX_EVENT_TYPE_LENGTH = 255;
export const MAX_EVENTS_PER_APPEND = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Control characters and whitespace make names unprintable in logs and ambiguous in URLs.
// eslint-disable-next-line no-control-regex
const BAD_NAME_CHARS = /[\s\u0000-\u001f\u007f]/u;

export function checkStreamName(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string' || stream.length === 0) {
    throw new InvalidAppendError('Stream name must be a non-empty string, such as "session-<id>"');
  }
  if (stream.length > MAX_STREAM_NAME_LENGTH) {
    throw new InvalidAppendError(
      `Stream name is ${stream.length} characters long; at most ${MAX_STREAM_NAME_LENGTH} are accepted`,
    );
  }
  if (stream.startsWith('$')) {
    throw new InvalidAppendError(`Stream name "${stream}" starts with "$", which is reserved for system streams`);
  }
  if (BAD_NAME_CHARS.test(stream)) {
    throw new InvalidAppendError(`Stream name ${JSON.stringify(stream)} contains whitespace or control characters`);
  }
}

export function checkExpected(expected: unknown): asserts expected is ExpectedRevision {
  if (expected === 'any' || expected === 'no_stream' || expected === 'exists') return;
  if (typeof expected === 'bigint' && expected >= 0n) return;
  throw new InvalidAppendError(
    `Expected revision ${describeValue(expected)} is not accepted: use 'any', 'no_stream', 'exists' ` +
      'or a non-negative bigint revision',
  );
}

export function checkMaxCount(maxCount: unknown): void {
  if (maxCount === undefined) return;
  if (typeof maxCount !== 'number' || !Number.isSafeInteger(maxCount) || maxCount < 0) {
    throw new InvalidAppendError(`maxCount ${describeValue(maxCount)} is not accepted: use a non-negative integer`);
  }
}

export interface PreparedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** Validates an append and serializes it once; adapters store the returned JSON text. */
export function prepareEvents(
  stream: string,
  events: readonly EventData[],
  newId: () => string,
): PreparedEvent[] {
  checkStreamName(stream);
  if (!Array.isArray(events) || events.length === 0) {
    throw new InvalidAppendError(`Append to "${stream}" must carry at least one event`);
  }
  if (events.length > MAX_EVENTS_PER_APPEND) {
    throw new InvalidAppendError(
      `Append to "${stream}" carries ${events.length} events; at most ${MAX_EVENTS_PER_APPEND} are accepted`,
    );
  }
  let bytes = 0;
  const seen = new Set<string>();
  const prepared = events.map((event, index) => {
    const where = `event ${index} of the append to "${stream}"`;
    if (event === null || typeof event !== 'object') {
      throw new InvalidAppendError(`${where} must be an object {id?, type, data, metadata?}`);
    }
    const id = event.id ?? newId();
    if (typeof id !== 'string' || !UUID.test(id)) {
      throw new InvalidAppendError(`${where} has id ${describeValue(id)}; event ids must be UUIDs`);
    }
    const lowerId = id.toLowerCase();
    if (seen.has(lowerId)) throw new InvalidAppendError(`${where} repeats event id ${id} within the same append`);
    seen.add(lowerId);
    checkEventType(event.type, where);
    assertJson(event.data, `${where} (${event.type}) data`);
    if (event.metadata !== undefined) {
      if (event.metadata === null || typeof event.metadata !== 'object' || Array.isArray(event.metadata)) {
        throw new InvalidAppendError(`${where} (${event.type}) metadata must be a JSON object`);
      }
      assertJson(event.metadata, `${where} (${event.type}) metadata`);
    }
    const data = JSON.stringify(event.data);
    const metadata = JSON.stringify(event.metadata ?? {});
    bytes += Buffer.byteLength(data) + Buffer.byteLength(metadata);
    return { id: lowerId, type: event.type, data, metadata };
  });
  if (bytes > MAX_APPEND_BYTES) {
    throw new InvalidAppendError(
      `Append to "${stream}" is ${bytes} bytes of data and metadata; at most ${MAX_APPEND_BYTES} bytes are accepted`,
    );
  }
  return prepared;
}

function checkEventType(type: unknown, where: string): asserts type is string {
  if (typeof type !== 'string' || type.length === 0) {
    throw new InvalidAppendError(`${where} needs a non-empty string type`);
  }
  if (type.length > MAX_EVENT_TYPE_LENGTH) {
    throw new InvalidAppendError(`${where} has a type of ${type.length} characters; at most ${MAX_EVENT_TYPE_LENGTH}`);
  }
  if (type.startsWith('$')) {
    throw new InvalidAppendError(`${where} has type "${type}"; types starting with "$" are reserved for the system`);
  }
  if (BAD_NAME_CHARS.test(type)) {
    throw new InvalidAppendError(`${where} has type ${JSON.stringify(type)} with whitespace or control characters`);
  }
}

/**
 * Refuses anything JSON.stringify would silently change: undefined, functions, symbols, bigints,
 * non-finite numbers, cycles, and class instances such as Date or Map.
 */
export function assertJson(value: unknown, where: string): void {
  const stack = new Set<object>();
  const visit = (v: unknown, path: string): void => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) throw new InvalidAppendError(`${where} is not JSON: ${path} is ${v}`);
        return;
      case 'object': {
        if (v === null) return;
        if (stack.has(v)) throw new InvalidAppendError(`${where} is not JSON: ${path} is a circular reference`);
        const proto = Object.getPrototypeOf(v);
        const isArray = Array.isArray(v);
        if (!isArray && proto !== Object.prototype && proto !== null) {
          const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
          throw new InvalidAppendError(`${where} is not JSON: ${path} is a ${name}; use plain objects and arrays`);
        }
        stack.add(v);
        if (isArray) (v as unknown[]).forEach((item, i) => visit(item, `${path}[${i}]`));
        else for (const [key, item] of Object.entries(v)) visit(item, `${path}.${key}`);
        stack.delete(v);
        return;
      }
      default:
        throw new InvalidAppendError(`${where} is not JSON: ${path} is ${describeValue(v)}`);
    }
  };
  visit(value, '$');
}

export function checkStreamMetadata(metadata: StreamMetadata): void {
  if (metadata === null || typeof metadata !== 'object') {
    throw new InvalidAppendError('Stream metadata must be an object {maxCount?, maxAge?, truncateBefore?, custom?}');
  }
  const known = new Set(['maxCount', 'maxAge', 'truncateBefore', 'custom']);
  for (const key of Object.keys(metadata)) {
    if (!known.has(key)) {
      throw new InvalidAppendError(
        `Unknown stream metadata key "${key}"; accepted keys are maxCount, maxAge, truncateBefore and custom`,
      );
    }
  }
  for (const key of ['maxCount', 'maxAge'] as const) {
    const value = metadata[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new InvalidAppendError(`Stream metadata ${key} ${describeValue(value)} must be a positive integer`);
    }
  }
  const tb = metadata.truncateBefore;
  if (tb !== undefined && (typeof tb !== 'bigint' || tb < 0n)) {
    throw new InvalidAppendError(`Stream metadata truncateBefore ${describeValue(tb)} must be a non-negative bigint`);
  }
  if (metadata.custom !== undefined) assertJson(metadata.custom, 'Stream metadata custom');
}

export function metadataToJson(metadata: StreamMetadata): JsonObject {
  const out: JsonObject = {};
  if (metadata.maxCount !== undefined) out.maxCount = metadata.maxCount;
  if (metadata.maxAge !== undefined) out.maxAge = metadata.maxAge;
  if (metadata.truncateBefore !== undefined) out.truncateBefore = metadata.truncateBefore.toString();
  if (metadata.custom !== undefined) out.custom = metadata.custom;
  return out;
}

export function metadataFromJson(json: JsonObject): StreamMetadata {
  const out: StreamMetadata = {};
  if (typeof json.maxCount === 'number') out.maxCount = json.maxCount;
  if (typeof json.maxAge === 'number') out.maxAge = json.maxAge;
  if (typeof json.truncateBefore === 'string') out.truncateBefore = BigInt(json.truncateBefore);
  if (json.custom && typeof json.custom === 'object' && !Array.isArray(json.custom)) out.custom = json.custom;
  return out;
}

export function describeValue(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
