/** Event factories shared by the baseline and the store scenarios, so both write the same rows. */
import { randomUUID } from 'node:crypto';
import type { EventData, JsonObject } from '../../src/events/store/types.js';

/**
 * The ids the raw baseline writes: random v4 UUIDs, as the store generates (`randomUUID`) for events
 * appended without an id. If the store's id generator changes, change this too so the baseline keeps
 * writing the same rows (id order decides how much of the `events_by_id` index each commit touches).
 */
export const baselineId: () => string = randomUUID;

const TEXT = 'The quick brown fox jumps over the lazy dog while the agent replies at length. '.repeat(2).slice(0, 104);

/** Data serializes to about 200 bytes of JSON. */
export function eventData(seq: number): JsonObject {
  return {
    sessionId: 'session-0001',
    seq,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    text: TEXT,
    tokens: 17 + (seq % 100),
    final: seq % 10 === 0,
  };
}

export function eventMetadata(seq: number): JsonObject {
  return { source: 'bench', correlation: `c-${seq}` };
}

export const EVENT_TYPE = 'MessageAppended';

/** An event as a decider would append it: no id, the store assigns a UUID. */
export function makeEvent(seq: number): EventData {
  return { type: EVENT_TYPE, data: eventData(seq), metadata: eventMetadata(seq) };
}

export function makeEvents(firstSeq: number, count: number): EventData[] {
  const out: EventData[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = makeEvent(firstSeq + i);
  return out;
}

/**
 * A caller-assigned, ascending UUID (version nibble 4, variant 8, so the store's UUID check accepts it).
 * Ascending ids keep the store's unique index on `id` append-only, which makes seeding a large log fast.
 */
export function sequentialId(seq: number): string {
  return `00000000-0000-4000-8000-${seq.toString(16).padStart(12, '0')}`;
}

export function makeEventsWithIds(firstSeq: number, count: number): EventData[] {
  const out = makeEvents(firstSeq, count);
  for (let i = 0; i < count; i++) out[i]!.id = sequentialId(firstSeq + i);
  return out;
}

export function streamName(prefix: string, index: number): string {
  return `${prefix}-${index.toString().padStart(5, '0')}`;
}
