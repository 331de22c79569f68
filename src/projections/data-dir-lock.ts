/**
 * One process at a time may run the projections of a data directory: the server holds this lock;
 * an offline `seed-agents rebuild` takes it too, so the two never write the same read models.
 *
 * The lock is SQLite's own exclusive lock on `projections.lock`, held by an open transaction for the
 * life of the holder. It lives in the kernel (POSIX advisory locks), so it vanishes with the process
 * however it dies — a reused pid or a SIGKILL cannot leave a stale lock behind. Who holds it is
 * written beside it, only to name the holder in the refusal.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string, holder: string): DataDirLock {
  const path = join(dataDir, 'projections.lock');
  const infoPath = `${path}.json`;
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new DataDirLockedError(
      `${describeHolder(infoPath)} is running the projections of ${dataDir}; stop it first ` +
        '(a running server rebuilds a projection itself when its version changes)',
    );
  }
  writeFileSync(infoPath, JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() }), { mode: 0o600 });
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      rmSync(infoPath, { force: true });
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

function describeHolder(infoPath: string): string {
  try {
    const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { pid: number; holder: string; since: string };
    return `${info.holder} (pid ${info.pid}, since ${info.since})`;
  } catch (error) {
    // The holder may be between taking the lock and writing who it is.
    if (error instanceof SyntaxError || (error as { code?: string }).code === 'ENOENT') return 'another process';
    throw error;
  }
}
