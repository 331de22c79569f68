import { randomUUID } from 'node:crypto';
import type { EventData, RecordedEvent, Subscription, SubscriptionMessage } from '../../src/events/store/types.js';

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export function events(count: number, type = 'TestEvent', from = 0): EventData[] {
  return Array.from({ length: count }, (_, i) => ({ id: randomUUID(), type, data: { n: from + i } }));
}

/** Reads messages until `stop` says so, failing instead of hanging when nothing arrives in time. */
export async function readUntil(
  sub: Subscription,
  stop: (seen: SubscriptionMessage[], eventCount: number) => boolean,
  timeoutMs = 10_000,
): Promise<SubscriptionMessage[]> {
  const seen: SubscriptionMessage[] = [];
  let eventCount = 0;
  const iterator = sub[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (!stop(seen, eventCount)) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Subscription stalled after ${seen.length} messages (${timeoutMs} ms)`)),
        Math.max(left, 0),
      );
    });
    const next = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (next.done) break;
    seen.push(next.value);
    if (next.value.kind === 'event') eventCount++;
  }
  return seen;
}

export function eventsOf(messages: SubscriptionMessage[]): RecordedEvent[] {
  return messages.flatMap((m) => (m.kind === 'event' ? [m.event] : []));
}

export const countEvents = (n: number) => (_: SubscriptionMessage[], eventCount: number) => eventCount >= n;

export const untilCaughtUp = (seen: SubscriptionMessage[]) => seen.some((m) => m.kind === 'caughtUp');

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
