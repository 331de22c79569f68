/**
 * `seed-agents secrets rotate-master-key`: re-seals every stored secret's key under a new master key,
 * in one transaction. Runs with the server stopped (it takes the data directory's lock).
 *
 * With the key file, the new key is written to `master.key.next` first, the store re-sealed, then the
 * file moved over `master.key`; a crash after the re-seal is finished by the next start (the store
 * records which key sealed it). With SEED_AGENTS_MASTER_KEY, the new key comes from
 * SEED_AGENTS_NEW_MASTER_KEY and the operator switches the variable afterwards.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDataDir, loadConfig, parseMasterKey } from '../../config/config.js';
import { lockDataDir } from '../../projections/data-dir-lock.js';
import { createKeyFile, NEXT_MASTER_KEY_FILE } from '../../secrets/master-key.js';
import { openSecretStore } from '../../secrets/open-secret-store.js';
import { keyId, newKey } from '../../secrets/secret-crypto.js';
import { SECRETS_FILE } from '../../secrets/secret-store.js';
import { CliError, type Command } from '../run-cli.js';

export const secrets: Command = {
  summary: 'secrets rotate-master-key  re-seal every stored secret under a new master key (server stopped)',
  async run(args) {
    const [sub, ...rest] = args;
    if (sub !== 'rotate-master-key') {
      throw new CliError(`secrets: expected "rotate-master-key", got ${sub === undefined ? 'nothing' : `"${sub}"`}`);
    }
    parseArgs({ args: rest, strict: true, options: {} });
    const config = loadConfig();
    const dataDir = ensureDataDir(config);
    if (!existsSync(join(dataDir, SECRETS_FILE))) {
      throw new CliError(`secrets: ${dataDir} has no ${SECRETS_FILE} yet; there is nothing to rotate`);
    }
    const supplied = parseMasterKey('SEED_AGENTS_NEW_MASTER_KEY', process.env.SEED_AGENTS_NEW_MASTER_KEY);
    const lock = lockDataDir(dataDir, 'seed-agents secrets rotate-master-key');
    try {
      const { store, source } = openSecretStore(config);
      try {
        if (supplied && keyId(supplied) === keyId(source.key)) {
          throw new CliError('secrets: SEED_AGENTS_NEW_MASTER_KEY is the current master key; give a new one');
        }
        if (source.kind === 'env') {
          if (!supplied) {
            throw new CliError(
              'secrets: the master key comes from SEED_AGENTS_MASTER_KEY, so give the new one in SEED_AGENTS_NEW_MASTER_KEY ' +
                '(32 random bytes in base64, e.g. from `openssl rand -base64 32`)',
            );
          }
          const count = store.rotateMasterKey(supplied);
          process.stdout.write(
            `re-sealed ${count} secrets under the new master key (key id ${keyId(supplied)}); ` +
              'now set SEED_AGENTS_MASTER_KEY to the value of SEED_AGENTS_NEW_MASTER_KEY before starting the server\n',
          );
          return 0;
        }
        const nextPath = join(dataDir, NEXT_MASTER_KEY_FILE);
        // The store just opened under the current key, so any master.key.next is from a rotation that
        // stopped before re-sealing anything: unused.
        rmSync(nextPath, { force: true });
        const next = createKeyFile(nextPath, supplied ?? newKey());
        const count = store.rotateMasterKey(next);
        renameSync(nextPath, source.path);
        process.stdout.write(`re-sealed ${count} secrets under a new master key (key id ${keyId(next)}) in ${source.path}\n`);
        return 0;
      } finally {
        store.close();
      }
    } finally {
      lock.release();
    }
  },
};
