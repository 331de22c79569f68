import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, createKeyFile } from './master-key.js';
import { openSecretStore } from './open-secret-store.js';
import { newKey } from './secret-crypto.js';
import { MasterKeyMismatchError, SECRETS_FILE, SecretStore } from './secret-store.js';

const value = Buffer.from('sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0');

describe('SecretStore', () => {
  let dir: string;
  let path: string;
  let master: Buffer;
  let store: SecretStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-secrets-'));
    path = join(dir, SECRETS_FILE);
    master = newKey();
    store = new SecretStore(path, master);
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = () => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare('SELECT account_id, name, fingerprint, wrapped_key, ciphertext FROM secrets ORDER BY name').all() as {
        account_id: string;
        name: string;
        fingerprint: string;
        wrapped_key: Buffer;
        ciphertext: Buffer;
      }[];
    } finally {
      db.close();
    }
  };

  it('keeps only ciphertext on disk and gives the value back', () => {
    const fingerprint = store.fingerprint('acct', value);
    expect(store.put('acct', 'openai', fingerprint, value)).toBe(true);
    expect(store.put('acct', 'openai', fingerprint, value)).toBe(false);
    expect(store.reveal('acct', 'openai', fingerprint)).toEqual(value);
    expect(store.reveal('acct', 'openai', 'hmac-sha256:other')).toBeNull();
    const file = readFileSync(path);
    for (const form of [value, Buffer.from(value.toString('base64')), Buffer.from(value.toString('hex'))]) {
      expect(file.includes(form)).toBe(false);
    }
  });

  it('fingerprints equal values equally within an account, differently across accounts', () => {
    expect(store.fingerprint('a', value)).toBe(store.fingerprint('a', Buffer.from(value)));
    expect(store.fingerprint('a', value)).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(store.fingerprint('a', value)).not.toBe(store.fingerprint('b', value));
    expect(store.fingerprint('a', value)).not.toBe(store.fingerprint('a', Buffer.from('other')));
  });

  it('binds each sealed value to its row: bytes moved to another row do not open', () => {
    const a = store.fingerprint('acct', Buffer.from('a'));
    const b = store.fingerprint('acct', Buffer.from('b'));
    store.put('acct', 'one', a, Buffer.from('a'));
    store.put('acct', 'two', b, Buffer.from('b'));
    store.close();
    const db = new Database(path);
    db.prepare(
      "UPDATE secrets SET wrapped_key = (SELECT wrapped_key FROM secrets WHERE name = 'one'), ciphertext = (SELECT ciphertext FROM secrets WHERE name = 'one') WHERE name = 'two'",
    ).run();
    db.close();
    store = new SecretStore(path, master);
    expect(() => store.reveal('acct', 'two', b)).toThrow(/The key of secret "two" does not open under this key/);
  });

  it('retains only the rows the log names, erasing the rest from the file', () => {
    const old = store.fingerprint('acct', Buffer.from('old'));
    const current = store.fingerprint('acct', Buffer.from('new'));
    store.put('acct', 'key', old, Buffer.from('old'));
    store.put('acct', 'key', current, Buffer.from('new'));
    store.put('acct', 'gone', old, Buffer.from('old'));
    store.put('other', 'key', old, Buffer.from('old'));
    const erased = rows().find((r) => r.name === 'gone')!;
    expect(store.retain('acct', new Map([['key', current]]))).toBe(2);
    expect(rows().map((r) => [r.account_id, r.name, r.fingerprint])).toEqual([
      ['acct', 'key', current],
      ['other', 'key', old],
    ]);
    // secure_delete: the erased row's sealed bytes are overwritten, not just unlinked from the b-tree.
    const file = readFileSync(path);
    expect(file.includes(erased.ciphertext)).toBe(false);
    expect(file.includes(erased.wrapped_key)).toBe(false);
  });

  it('refuses to open under another master key, naming both key ids', () => {
    store.close();
    expect(() => new SecretStore(path, newKey())).toThrow(MasterKeyMismatchError);
    expect(() => new SecretStore(path, newKey())).toThrow(/is sealed under another master key \(key id \S+; the configured key has id \S+\)/);
    store = new SecretStore(path, master);
  });

  it('rotates the master key in one transaction, keeping values and fingerprints', () => {
    const fingerprint = store.fingerprint('acct', value);
    store.put('acct', 'openai', fingerprint, value);
    store.put('acct', 'other', store.fingerprint('acct', Buffer.from('x')), Buffer.from('x'));
    const before = rows();
    const next = newKey();
    expect(store.rotateMasterKey(next)).toBe(2);
    expect(rows().map((r) => r.ciphertext)).toEqual(before.map((r) => r.ciphertext));
    expect(rows().map((r) => r.wrapped_key)).not.toEqual(before.map((r) => r.wrapped_key));
    store.close();
    expect(() => new SecretStore(path, master)).toThrow(MasterKeyMismatchError);
    store = new SecretStore(path, next);
    expect(store.reveal('acct', 'openai', fingerprint)).toEqual(value);
    expect(store.fingerprint('acct', value)).toBe(fingerprint);
  });
});

describe('openSecretStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates master.key on first start and reuses it', () => {
    const config = loadConfig({ SEED_AGENTS_DATA_DIR: dir });
    const first = openSecretStore(config);
    expect(first.source.kind).toBe('file');
    const fingerprint = first.store.fingerprint('acct', value);
    first.store.put('acct', 'k', fingerprint, value);
    first.store.close();
    const second = openSecretStore(config);
    expect(second.store.reveal('acct', 'k', fingerprint)).toEqual(value);
    second.store.close();
  });

  it('uses SEED_AGENTS_MASTER_KEY without writing a key file', () => {
    const { store, source } = openSecretStore(loadConfig({ SEED_AGENTS_DATA_DIR: dir, SEED_AGENTS_MASTER_KEY: newKey().toString('base64') }));
    store.close();
    expect(source.kind).toBe('env');
    expect(existsSync(join(dir, MASTER_KEY_FILE))).toBe(false);
  });

  it('finishes a rotation that re-sealed the store but stopped before moving master.key.next into place', () => {
    const config = loadConfig({ SEED_AGENTS_DATA_DIR: dir });
    const { store } = openSecretStore(config);
    const fingerprint = store.fingerprint('acct', value);
    store.put('acct', 'k', fingerprint, value);
    const next = createKeyFile(join(dir, NEXT_MASTER_KEY_FILE));
    store.rotateMasterKey(next);
    store.close();
    const reopened = openSecretStore(config);
    expect(reopened.store.reveal('acct', 'k', fingerprint)).toEqual(value);
    reopened.store.close();
    expect(readFileSync(join(dir, MASTER_KEY_FILE), 'utf8').trim()).toBe(next.toString('base64'));
    expect(existsSync(join(dir, NEXT_MASTER_KEY_FILE))).toBe(false);
  });

  it('refuses to replace a lost master.key while sealed secrets exist', () => {
    const config = loadConfig({ SEED_AGENTS_DATA_DIR: dir });
    openSecretStore(config).store.close();
    rmSync(join(dir, MASTER_KEY_FILE));
    expect(() => openSecretStore(config)).toThrow(/master.key is missing, but the secrets in .* are sealed under a master key: restore master.key/);
    expect(existsSync(join(dir, MASTER_KEY_FILE))).toBe(false);
  });

  it('refuses a store sealed under another key when no pending rotation explains it', () => {
    const config = loadConfig({ SEED_AGENTS_DATA_DIR: dir });
    openSecretStore(config).store.close();
    writeFileSync(join(dir, MASTER_KEY_FILE), `${newKey().toString('base64')}\n`, { mode: 0o600 });
    expect(() => openSecretStore(config)).toThrow(/sealed under another master key/);
  });
});
