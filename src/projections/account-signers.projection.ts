/** Keys each account has authorized to sign for it: what the gateway checks on every request. */
import type { Projection } from './projection.js';

export interface AccountSignerRow {
  account_id: string;
  signer: string;
  role: 'AGENT' | 'WRITER';
  capability: string;
  label: string | null;
  authorized_at: number;
}

export const accountSignersProjection: Projection = {
  name: 'account_signers',
  version: 1,
  eventTypes: ['SignerAuthorized'],
  writeOnly: true,
  tables: {
    signers: `account_id TEXT NOT NULL, signer TEXT NOT NULL, role TEXT NOT NULL, capability TEXT NOT NULL,
              label TEXT, authorized_at INTEGER NOT NULL, PRIMARY KEY (account_id, signer)`,
  },
  apply(event, tx) {
    const data = event.data as { signer: string; role: string; capability: string; label?: string };
    tx.run(
      `INSERT INTO {signers} (account_id, signer, role, capability, label, authorized_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, signer) DO UPDATE SET role = excluded.role, capability = excluded.capability,
         label = excluded.label, authorized_at = excluded.authorized_at`,
      event.stream.slice('account-'.length),
      data.signer,
      data.role,
      data.capability,
      data.label ?? null,
      event.metadata.at,
    );
  },
};
