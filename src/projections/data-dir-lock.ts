/**
 * One process at a time may run the projections of a data directory: the server holds this lock;
 * an offline `seed-agents rebuild` takes it too, so the two never write the same read models.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string, holder: string): DataDirLock {
  const path = join(dataDir, 'projections.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          unlinkSync(path);
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      if (owner && isAlive(owner.pid)) {
        throw new DataDirLockedError(
          `${owner.holder} (pid ${owner.pid}) is running the projections of ${dataDir} since ${owner.since}; ` +
            'stop it first (a running server rebuilds a projection itself when its version changes)',
        );
      }
      // The holder died without releasing: the lock is stale.
      unlinkSync(path);
    }
  }
  throw new DataDirLockedError(`Could not lock ${path}: another process keeps taking it`);
}

function readOwner(path: string): { pid: number; holder: string; since: string } | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { pid: number; holder: string; since: string };
  } catch (error) {
    // Half-written by a process that died mid-write, or removed meanwhile: treat as stale.
    if (error instanceof SyntaxError || (error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
