import { describe, expect, it } from 'vitest';
import { position } from '../position.js';
import type { RecordedEvent, SubscriptionMessage } from '../types.js';
import { LiveHub, type HubReader } from './live-hub.js';

function event(n: number): RecordedEvent {
  return { id: `e${n}`, stream: 's', type: 'T', revision: BigInt(n - 1), position: position(BigInt(n)), data: {}, metadata: {}, created: 0 };
}

/**
 * A log of events 1–3, where another process commits event 4 right after any read that is not
 * part of a snapshot — the window between two separate statements.
 */
function racingReader(): HubReader {
  const log = [event(1), event(2), event(3)];
  let inSnapshot = false;
  const afterRead = () => {
    if (!inSnapshot && log.length === 3) log.push(event(4));
  };
  return {
    path: ':memory:',
    pageSize: 100,
    head: () => log.length,
    eventsAfter: (after) => log.filter((e) => Number(e.position.commit) > after),
    dataVersion: () => log.length,
    readAllPage: (after) => {
      const page = log.filter((e) => Number(e.position.commit) > after);
      afterRead();
      return page;
    },
    readStreamPage: () => [],
    lastRevision: () => BigInt(log.length - 1),
    snapshot: (read) => {
      inSnapshot = true;
      try {
        return read();
      } finally {
        inSnapshot = false;
        afterRead();
      }
    },
  };
}

describe('LiveHub', () => {
  it('takes the head it goes live at from the same snapshot as its last catch-up page', async () => {
    const reader = racingReader();
    const hub = new LiveHub(reader);
    const sub = hub.subscribeAll({ from: 'start' });
    const seen: SubscriptionMessage[] = [];
    const iterator = sub[Symbol.asyncIterator]();
    while (!seen.some((m) => m.kind === 'caughtUp')) seen.push((await iterator.next()).value);
    // Event 4 committed after the page was read: it must not count as delivered.
    expect(seen.at(-1)).toEqual({ kind: 'caughtUp', position: position(3n) });
    hub.publishLocal(3, [[4, 's', 3, 'e4', 'T', '{}', '{}', 0]]);
    const next = (await iterator.next()).value as SubscriptionMessage;
    expect(next.kind === 'event' && next.event.id).toBe('e4');
    await hub.close();
  });
});
