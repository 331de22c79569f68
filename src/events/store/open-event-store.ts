import { join } from 'node:path';
import { ensureDataDir, type Config } from '../../config/config.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';
import type { EventStore } from './types.js';

export const EVENT_STORE_FILE = 'events.db';

/** Opens the store the configuration names. The KurrentDB client loads only when asked for. */
export async function openEventStore(config: Config): Promise<EventStore> {
  if (config.store === 'kurrentdb') {
    const { KurrentDbEventStore } = await import('./kurrentdb/kurrentdb-event-store.js');
    return KurrentDbEventStore.fromConnectionString(config.kurrentDbUrl!);
  }
  return new SqliteEventStore(config.eventsFile ?? join(ensureDataDir(config), EVENT_STORE_FILE), { durability: config.durability });
}
