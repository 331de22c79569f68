/** Event factories shared by the baseline and the store scenarios, so both write the same rows. */
import type { EventData, JsonObject } from '../../src/events/store/types.js';

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

export function streamName(prefix: string, index: number): string {
  return `${prefix}-${index.toString().padStart(5, '0')}`;
}
