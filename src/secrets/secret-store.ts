/**
 * Secret values, outside the log (DESIGN.md: the second allowed exception). One SQLite file,
 * `secrets.db` in the data directory, holds per (account, secret name, fingerprint) the value sealed
 * with AES-256-GCM under a random key of its own, and that key sealed under the server master key.
 * The log holds only the secret's name, metadata and fingerprint, so deleting the row erases the
 * value for good (crypto-shredding): no copy of it, or of its key, survives anywhere.
 *
 * Rows are keyed by fingerprint as well as name so that a new value is stored beside the current one
 * until the log records it: the log's latest SecretSet names which row is the value, and a crash
 * between the two writes leaves the current value intact. `retain` removes every row the log no
 * longer names.
 */
import { chmodSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { MasterKeyError } from './master-key.js';
import { hmac, keyId, newKey, seal, unseal } from './secret-crypto.js';

export const SECRETS_FILE = 'secrets.db';

interface SecretRow {
  account_id: string;
  name: string;
  fingerprint: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
}

const FINGERPRINT_KEY_AAD = 'seed-agents fingerprint key v1';
const keyAad = (account: string, name: string, fingerprint: string) => `key\0${account}\0${name}\0${fingerprint}`;
const valueAad = (account: string, name: string, fingerprint: string) => `value\0${account}\0${name}\0${fingerprint}`;

export class SecretStore {
  private readonly db: Db;
  private masterKey: Buffer;
  /** HMAC key of fingerprints: random, sealed under the master key, so rotation keeps fingerprints stable. */
  private readonly fingerprintKey: Buffer;

  constructor(
    readonly path: string,
    masterKey: Buffer,
  ) {
    this.db = new Database(path);
    try {
      chmodSync(path, 0o600);
      // A rollback journal, not a WAL: old pages would otherwise linger in the -wal file after a delete.
      // secure_delete zeroes deleted rows in the file itself, so a removed secret's bytes are gone.
      this.db.pragma('journal_mode = DELETE');
      this.db.pragma('secure_delete = ON');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('busy_timeout = 10000');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS keyring (
          id                      INTEGER PRIMARY KEY CHECK (id = 1),
          master_key_id           TEXT NOT NULL,
          wrapped_fingerprint_key BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS secrets (
          account_id  TEXT NOT NULL,
          name        TEXT NOT NULL,
          fingerprint TEXT NOT NULL,
          wrapped_key BLOB NOT NULL,
          ciphertext  BLOB NOT NULL,
          stored_at   INTEGER NOT NULL,
          PRIMARY KEY (account_id, name, fingerprint)
        ) WITHOUT ROWID;
      `);
      this.masterKey = Buffer.from(masterKey);
      this.fingerprintKey = this.openKeyring();
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** Identifies a value within its account without revealing it: equal values, equal fingerprints. */
  fingerprint(account: string, value: Uint8Array): string {
    return `hmac-sha256:${hmac(this.fingerprintKey, 'secret value v1', account, value)}`;
  }

  /** Stores a value under its fingerprint; false when that very row already exists (nothing written). */
  put(account: string, name: string, fingerprint: string, value: Uint8Array): boolean {
    const dataKey = newKey();
    try {
      const result = this.db
        .prepare(
          `INSERT OR IGNORE INTO secrets (account_id, name, fingerprint, wrapped_key, ciphertext, stored_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          account,
          name,
          fingerprint,
          seal(this.masterKey, dataKey, keyAad(account, name, fingerprint)),
          seal(dataKey, value, valueAad(account, name, fingerprint)),
          Date.now(),
        );
      return result.changes === 1;
    } finally {
      dataKey.fill(0);
    }
  }

  remove(account: string, name: string, fingerprint: string): void {
    this.db.prepare('DELETE FROM secrets WHERE account_id = ? AND name = ? AND fingerprint = ?').run(account, name, fingerprint);
  }

  /** The plaintext, or null when no row holds that value. Callers keep it in memory only. */
  reveal(account: string, name: string, fingerprint: string): Buffer | null {
    const row = this.db
      .prepare('SELECT * FROM secrets WHERE account_id = ? AND name = ? AND fingerprint = ?')
      .get(account, name, fingerprint) as SecretRow | undefined;
    if (!row) return null;
    const dataKey = unseal(this.masterKey, row.wrapped_key, keyAad(account, name, fingerprint), `The key of secret "${name}"`);
    try {
      return unseal(dataKey, row.ciphertext, valueAad(account, name, fingerprint), `Secret "${name}"`);
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * Keeps, of the account's rows, only the values the log names (`live`: name → fingerprint) and
   * deletes the rest: replaced values, deleted secrets, and values whose SetSecret never reached the
   * log. Returns how many rows were deleted.
   */
  retain(account: string, live: ReadonlyMap<string, string>): number {
    const rows = this.db.prepare('SELECT name, fingerprint FROM secrets WHERE account_id = ?').all(account) as Pick<
      SecretRow,
      'name' | 'fingerprint'
    >[];
    const stale = rows.filter((row) => live.get(row.name) !== row.fingerprint);
    const remove = this.db.prepare('DELETE FROM secrets WHERE account_id = ? AND name = ? AND fingerprint = ?');
    this.db.transaction(() => {
      for (const row of stale) remove.run(account, row.name, row.fingerprint);
    })();
    return stale.length;
  }

  /**
   * Re-seals every value's key, and the fingerprint key, under `next`, in one transaction: either all
   * rows move to the new master key or none do. Values and fingerprints are unchanged.
   */
  rotateMasterKey(next: Buffer): number {
    const rows = this.db.prepare('SELECT account_id, name, fingerprint, wrapped_key FROM secrets').all() as SecretRow[];
    const update = this.db.prepare('UPDATE secrets SET wrapped_key = ? WHERE account_id = ? AND name = ? AND fingerprint = ?');
    this.db.transaction(() => {
      for (const row of rows) {
        const aad = keyAad(row.account_id, row.name, row.fingerprint);
        const dataKey = unseal(this.masterKey, row.wrapped_key, aad, `The key of secret "${row.name}" of ${row.account_id}`);
        try {
          update.run(seal(next, dataKey, aad), row.account_id, row.name, row.fingerprint);
        } finally {
          dataKey.fill(0);
        }
      }
      this.db
        .prepare('UPDATE keyring SET master_key_id = ?, wrapped_fingerprint_key = ? WHERE id = 1')
        .run(keyId(next), seal(next, this.fingerprintKey, FINGERPRINT_KEY_AAD));
    })();
    this.masterKey.fill(0);
    this.masterKey = Buffer.from(next);
    return rows.length;
  }

  close(): void {
    this.masterKey.fill(0);
    this.fingerprintKey.fill(0);
    this.db.close();
  }

  private openKeyring(): Buffer {
    const ring = this.db.prepare('SELECT * FROM keyring WHERE id = 1').get() as
      | { master_key_id: string; wrapped_fingerprint_key: Buffer }
      | undefined;
    if (!ring) {
      const fingerprintKey = newKey();
      this.db
        .prepare('INSERT INTO keyring (id, master_key_id, wrapped_fingerprint_key) VALUES (1, ?, ?)')
        .run(keyId(this.masterKey), seal(this.masterKey, fingerprintKey, FINGERPRINT_KEY_AAD));
      return fingerprintKey;
    }
    if (ring.master_key_id !== keyId(this.masterKey)) {
      throw new MasterKeyMismatchError(
        `${this.path} is sealed under another master key (key id ${ring.master_key_id}; the configured key has id ` +
          `${keyId(this.masterKey)}): start the server with the master key it was sealed under ` +
          '(SEED_AGENTS_MASTER_KEY or master.key in the data directory)',
        ring.master_key_id,
      );
    }
    return unseal(this.masterKey, ring.wrapped_fingerprint_key, FINGERPRINT_KEY_AAD, 'The fingerprint key');
  }
}

export class MasterKeyMismatchError extends MasterKeyError {
  override name = 'MasterKeyMismatchError';
  constructor(
    message: string,
    readonly sealedUnder: string,
  ) {
    super(message);
  }
}
