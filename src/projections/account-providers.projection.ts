/** Each account's model providers, with their full config (only ever answered redacted). */
import type { Projection } from './projection.js';

export interface AccountProviderRow {
  account_id: string;
  name: string;
  id: string;
  /** ModelProviderConfig as JSON. */
  config: string;
  created_at: number;
  updated_at: number;
}

export const accountProvidersProjection: Projection = {
  name: 'account_providers',
  version: 1,
  eventTypes: ['ModelProviderSet', 'ModelProviderDeleted'],
  writeOnly: true,
  tables: {
    providers: `account_id TEXT NOT NULL, name TEXT NOT NULL, id TEXT NOT NULL, config TEXT NOT NULL,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (account_id, name)`,
  },
  apply(event, tx) {
    const account = event.stream.slice('account-'.length);
    if (event.type === 'ModelProviderDeleted') {
      tx.run('DELETE FROM {providers} WHERE account_id = ? AND name = ?', account, (event.data as { name: string }).name);
      return;
    }
    const data = event.data as { id: string; name: string; config: unknown };
    tx.run(
      `INSERT INTO {providers} (account_id, name, id, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, name) DO UPDATE SET id = excluded.id, config = excluded.config, updated_at = excluded.updated_at`,
      account,
      data.name,
      data.id,
      JSON.stringify(data.config),
      event.metadata.at,
      event.metadata.at,
    );
  },
};
