import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventContext } from '../../src/events/catalog/metadata.js';
import { EventLog, type NewEvent } from '../../src/events/event-log.js';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';

export const userContext: EventContext = {
  actor: 'user',
  accountId: 'z6MkAccount',
  causationId: 'bafy-action',
  correlationId: 'req-1',
};

/** A fresh SQLite store and EventLog in a temp dir. */
export function tempLog(): { dir: string; store: SqliteEventStore; log: EventLog; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'seed-log-'));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const log = new EventLog(store);
  return {
    dir,
    store,
    log,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `count` user messages for one session, with their Log seq numbers starting at `fromSeq`. */
export function userMessages(count: number, fromSeq = 1, text = 'hello'): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'message',
    data: { role: 'user', content: `${text} ${fromSeq + i}` },
    metadata: { seq: fromSeq + i },
  }));
}
