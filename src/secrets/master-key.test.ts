import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { MASTER_KEY_FILE, MasterKeyError, readKeyFile, resolveMasterKey } from './master-key.js';

describe('master key', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-master-'));
    file = join(dir, MASTER_KEY_FILE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates master.key on first start, owner-only, and reads the same key afterwards', () => {
    const config = loadConfig({ SEED_AGENTS_DATA_DIR: dir });
    const created = resolveMasterKey(config, { mayCreate: true });
    expect(created).toMatchObject({ kind: 'file', path: file });
    expect(created.key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveMasterKey(config, { mayCreate: true }).key).toEqual(created.key);
  });

  it('prefers SEED_AGENTS_MASTER_KEY', () => {
    const key = Buffer.alloc(32, 3);
    expect(resolveMasterKey(loadConfig({ SEED_AGENTS_DATA_DIR: dir, SEED_AGENTS_MASTER_KEY: key.toString('base64') }), { mayCreate: false })).toEqual({
      kind: 'env',
      key,
    });
  });

  it.each([0o640, 0o604, 0o660])('refuses a key file with mode %o, saying how to fix it', (mode) => {
    writeFileSync(file, `${Buffer.alloc(32, 1).toString('base64')}\n`);
    chmodSync(file, mode);
    expect(() => readKeyFile(file)).toThrow(MasterKeyError);
    expect(() => readKeyFile(file)).toThrow(`Fix it with: chmod 600 ${file}`);
  });

  it('refuses a key file that does not hold 32 base64 bytes', () => {
    writeFileSync(file, 'short\n', { mode: 0o600 });
    expect(() => readKeyFile(file)).toThrow(/must hold exactly 32 bytes in padded base64/);
  });
});
