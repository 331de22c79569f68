import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { describeStoreContract } from './store.contract.js';

describeStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-store-'));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  return {
    store,
    streamPrefix: 'test-',
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
