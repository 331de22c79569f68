import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NODE_ID_FILE = 'node-id';

/**
 * This server's name on the runs it claims: kept in its data directory, so after a restart it
 * recognizes the runs it held when it stopped and takes them up again at once, without counting an
 * attempt, instead of waiting for their leases to lapse.
 */
export function nodeId(dataDir: string): string {
  const file = join(dataDir, NODE_ID_FILE);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = `node-${randomUUID()}`;
  writeFileSync(file, `${id}\n`, { mode: 0o600, flag: 'wx' });
  return id;
}
