/** `seed-agents secrets rotate-master-key`, run as an operator would: the compiled bin on a data directory. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { lockDataDir } from '../../src/projections/data-dir-lock.js';
import { MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE } from '../../src/secrets/master-key.js';
import { openSecretStore } from '../../src/secrets/open-secret-store.js';
import { newKey } from '../../src/secrets/secret-crypto.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const value = Buffer.from('sk-rotate-0123456789abcdef');

describe('seed-agents secrets rotate-master-key', () => {
  let dir: string;
  const rotate = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [BIN, 'secrets', 'rotate-master-key'], {
      env: { ...process.env, SEED_AGENTS_DATA_DIR: dir, ...env },
      encoding: 'utf8',
    });
  /** Stores one secret and returns how to read it back under a given environment. */
  const seed = (env: Record<string, string> = {}) => {
    const { store } = openSecretStore(loadConfig({ SEED_AGENTS_DATA_DIR: dir, ...env }));
    const fingerprint = store.fingerprint('acct', value);
    store.put('acct', 'k', fingerprint, value);
    store.close();
    return (readEnv: Record<string, string> = env) => {
      const { store: reopened } = openSecretStore(loadConfig({ SEED_AGENTS_DATA_DIR: dir, ...readEnv }));
      try {
        return reopened.reveal('acct', 'k', fingerprint);
      } finally {
        reopened.close();
      }
    };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-rotate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('re-seals under a new master.key, keeping every value', () => {
    const read = seed();
    const before = readFileSync(join(dir, MASTER_KEY_FILE), 'utf8');
    const result = rotate();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^re-sealed 1 secrets under a new master key \(key id \S+\) in .*master\.key$/m);
    expect(readFileSync(join(dir, MASTER_KEY_FILE), 'utf8')).not.toBe(before);
    expect(existsSync(join(dir, NEXT_MASTER_KEY_FILE))).toBe(false);
    expect(read()).toEqual(value);
  });

  it('with SEED_AGENTS_MASTER_KEY, takes the new key from SEED_AGENTS_NEW_MASTER_KEY', () => {
    const old = newKey().toString('base64');
    const read = seed({ SEED_AGENTS_MASTER_KEY: old });
    const missing = rotate({ SEED_AGENTS_MASTER_KEY: old });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/give the new one in SEED_AGENTS_NEW_MASTER_KEY/);
    const next = newKey().toString('base64');
    const result = rotate({ SEED_AGENTS_MASTER_KEY: old, SEED_AGENTS_NEW_MASTER_KEY: next });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/now set SEED_AGENTS_MASTER_KEY to the value of SEED_AGENTS_NEW_MASTER_KEY/);
    expect(() => read({ SEED_AGENTS_MASTER_KEY: old })).toThrow(/sealed under another master key/);
    expect(read({ SEED_AGENTS_MASTER_KEY: next })).toEqual(value);
  });

  it('refuses while the server holds the data directory, and when there is nothing to rotate', () => {
    expect(rotate().stderr).toMatch(/has no secrets\.db yet; there is nothing to rotate/);
    const read = seed();
    const lock = lockDataDir(dir, 'seed-agents serve');
    try {
      const refused = rotate();
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/seed-agents serve/);
    } finally {
      lock.release();
    }
    expect(read()).toEqual(value);
  });
});
