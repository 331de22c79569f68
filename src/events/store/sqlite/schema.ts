import type { Database } from 'better-sqlite3';

export type Durability = 'process' | 'power-loss';

/**
 * WAL lets readers in other processes run beside the one writer. `synchronous=NORMAL` in WAL mode
 * survives a process crash (the WAL is written before commit returns); `FULL` also fsyncs each commit
 * so it survives power loss, at about 25% of the write rate.
 */
export function openSchema(db: Database, durability: Durability): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'power-loss' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 10000');
  // Checkpoints are where WAL mode fsyncs; letting the WAL grow to ~40 MB between them doubles the
  // append rate at the cost of a larger -wal file.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('foreign_keys = OFF');
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream   TEXT    NOT NULL,
      revision INTEGER NOT NULL,
      id       TEXT    NOT NULL,
      type     TEXT    NOT NULL,
      data     TEXT    NOT NULL,
      metadata TEXT    NOT NULL,
      created  INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events (stream, revision);
    -- Ids are unique per stream, as in KurrentDB. A global index on random UUIDs dirties one random
    -- page per event and cut batched appends to a fifth; keyed by stream first, a batch touches one.
    DROP INDEX IF EXISTS events_by_id;
    CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream_id ON events (stream, id);
    -- state: 0 open, 1 soft-deleted, 2 tombstoned. last_revision is -1 while no event exists.
    CREATE TABLE IF NOT EXISTS streams (
      name              TEXT    PRIMARY KEY,
      last_revision     INTEGER NOT NULL DEFAULT -1,
      state             INTEGER NOT NULL DEFAULT 0,
      metadata          TEXT,
      metadata_revision INTEGER NOT NULL DEFAULT -1
    ) WITHOUT ROWID;
  `);
}

export const STATE_OPEN = 0;
export const STATE_SOFT_DELETED = 1;
export const STATE_TOMBSTONED = 2;

export interface StreamRow {
  last_revision: number;
  state: number;
  metadata: string | null;
  metadata_revision: number;
}

export interface EventRow {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}
