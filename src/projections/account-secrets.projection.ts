/**
 * Each account's secrets as the log records them — name, metadata, fingerprint; never a value. The
 * fingerprint says which secret-store row holds the current value.
 */
import type { Projection } from './projection.js';

export interface AccountSecretRow {
  account_id: string;
  name: string;
  id: string;
  fingerprint: string;
  /** JSON, or null when the secret has none. */
  metadata: string | null;
  created_at: number;
  updated_at: number;
}

export const accountSecretsProjection: Projection = {
  name: 'account_secrets',
  version: 1,
  eventTypes: ['SecretSet', 'SecretDeleted'],
  writeOnly: true,
  tables: {
    secrets: `account_id TEXT NOT NULL, name TEXT NOT NULL, id TEXT NOT NULL, fingerprint TEXT NOT NULL, metadata TEXT,
              created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (account_id, name)`,
  },
  apply(event, tx) {
    const account = event.stream.slice('account-'.length);
    if (event.type === 'SecretDeleted') {
      tx.run('DELETE FROM {secrets} WHERE account_id = ? AND name = ?', account, (event.data as { name: string }).name);
      return;
    }
    const data = event.data as { id: string; name: string; fingerprint: string; metadata?: unknown };
    tx.run(
      `INSERT INTO {secrets} (account_id, name, id, fingerprint, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, name) DO UPDATE SET id = excluded.id, fingerprint = excluded.fingerprint,
         metadata = excluded.metadata, updated_at = excluded.updated_at`,
      account,
      data.name,
      data.id,
      data.fingerprint,
      data.metadata === undefined ? null : JSON.stringify(data.metadata),
      event.metadata.at,
      event.metadata.at,
    );
  },
};
