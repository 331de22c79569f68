import { existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDataDir, type Config } from '../config/config.js';
import { NEXT_MASTER_KEY_FILE, readKeyFile, resolveMasterKey, type MasterKeySource } from './master-key.js';
import { keyId } from './secret-crypto.js';
import { MasterKeyMismatchError, SECRETS_FILE, SecretStore } from './secret-store.js';

/**
 * Opens the data directory's secret store under the configured master key. A rotation that
 * re-sealed the store but stopped before moving `master.key.next` over `master.key` is finished
 * here: the store's key id proves which key sealed it.
 */
export function openSecretStore(config: Config): { store: SecretStore; source: MasterKeySource } {
  const path = join(ensureDataDir(config), SECRETS_FILE);
  const source = resolveMasterKey(config, { mayCreate: !existsSync(path) });
  try {
    return { store: new SecretStore(path, source.key), source };
  } catch (error) {
    if (!(error instanceof MasterKeyMismatchError) || source.kind !== 'file') throw error;
    const nextPath = join(dirname(source.path), NEXT_MASTER_KEY_FILE);
    const next = readKeyFile(nextPath);
    if (!next || keyId(next) !== error.sealedUnder) throw error;
    renameSync(nextPath, source.path);
    return { store: new SecretStore(path, next), source: { ...source, key: next } };
  }
}
