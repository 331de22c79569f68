/**
 * The server master key wraps the key of every stored secret. It comes from SEED_AGENTS_MASTER_KEY,
 * or from `master.key` in the data directory, created on first start readable by its owner only.
 */
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ensureDataDir, MASTER_KEY_BYTES, type Config } from '../config/config.js';
import { newKey } from './secret-crypto.js';

export const MASTER_KEY_FILE = 'master.key';
/** Where `secrets rotate-master-key` puts the new key until the store is re-sealed under it. */
export const NEXT_MASTER_KEY_FILE = 'master.key.next';

/** A configuration error: `seed-agents` prints it without a stack trace. */
export class MasterKeyError extends ConfigError {
  override name = 'MasterKeyError';
}

export type MasterKeySource = { kind: 'env'; key: Buffer } | { kind: 'file'; key: Buffer; path: string };

/**
 * `mayCreate` is false once secrets were sealed: a new key could not open them, so a missing key
 * file is then refused rather than replaced.
 */
export function resolveMasterKey(config: Config, { mayCreate }: { mayCreate: boolean }): MasterKeySource {
  if (config.masterKey) return { kind: 'env', key: config.masterKey };
  const path = join(ensureDataDir(config), MASTER_KEY_FILE);
  const key = readKeyFile(path);
  if (key) return { kind: 'file', key, path };
  if (!mayCreate) {
    throw new MasterKeyError(
      `${path} is missing, but the secrets in ${config.dataDir} are sealed under a master key: restore master.key from ` +
        'a backup, or set SEED_AGENTS_MASTER_KEY to the key it held (a new key cannot open them)',
    );
  }
  return { kind: 'file', key: createKeyFile(path), path };
}

/** The key in `path`, or null when there is no such file. Refuses a file others can read or write. */
export function readKeyFile(path: string): Buffer | null {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // Windows has no POSIX permission bits to check: statSync reports a fixed mode there.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new MasterKeyError(
      `${path} is accessible to group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); the master key ` +
        `must be readable by the server's user only. Fix it with: chmod 600 ${path}`,
    );
  }
  const text = readFileSync(path, 'utf8').trim();
  const key = Buffer.from(text, 'base64');
  if (key.length !== MASTER_KEY_BYTES || key.toString('base64') !== text) {
    throw new MasterKeyError(`${path} must hold exactly ${MASTER_KEY_BYTES} bytes in padded base64 (44 characters)`);
  }
  return key;
}

/**
 * Writes a new random key to `path` with mode 0600 — complete or not at all: it is written to a
 * temporary file and linked into place, which fails if another process created `path` first (then
 * that process's key is used).
 */
export function createKeyFile(path: string, key: Buffer = newKey()): Buffer {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    // The open mode is narrowed by the umask, never widened; set it exactly.
    fchmodSync(fd, 0o600);
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKeyFile(path)!;
  } finally {
    unlinkSync(temporary);
  }
  return key;
}
