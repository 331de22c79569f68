/**
 * The read-model database: projection tables, one generation at a time serving, and each
 * generation's checkpoint, written in the same transaction as its rows.
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { parsePosition, serializePosition, type Position } from '../events/store/position.js';
import type { Projection } from './projection.js';
import { physicalTable } from './table-names.js';

/** The read-model database's file name in the data directory. */
export const READ_MODELS_FILE = 'readmodels.db';

export type GenerationState = 'serving' | 'building';

export interface GenerationRow {
  name: string;
  generation: number;
  version: number;
  state: GenerationState;
  checkpoint: Position | null;
  events: number;
}

interface RawGenerationRow {
  name: string;
  generation: number;
  version: number;
  state: GenerationState;
  checkpoint: string | null;
  events: number;
}

export class ReadModelDb {
  readonly db: Db;

  constructor(readonly path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // Read models are rebuilt from the log, so a commit needs no fsync of its own.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('wal_autocheckpoint = 10000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS projection_generations (
        name       TEXT    NOT NULL,
        generation INTEGER NOT NULL,
        version    INTEGER NOT NULL,
        state      TEXT    NOT NULL CHECK (state IN ('serving', 'building')),
        checkpoint TEXT,
        events     INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (name, generation)
      );
    `);
  }

  generations(name: string): GenerationRow[] {
    return (
      this.db
        .prepare('SELECT * FROM projection_generations WHERE name = ? ORDER BY generation')
        .all(name) as RawGenerationRow[]
    ).map((row) => ({ ...row, checkpoint: row.checkpoint === null ? null : parsePosition(row.checkpoint) }));
  }

  /** Creates the tables of a new generation and records it; returns the generation number. */
  createGeneration(projection: Projection, state: GenerationState): number {
    return this.db.transaction(() => {
      const { next } = this.db
        .prepare('SELECT COALESCE(MAX(generation), 0) + 1 AS next FROM projection_generations WHERE name = ?')
        .get(projection.name) as { next: number };
      for (const [table, spec] of Object.entries(projection.tables)) {
        const [columns, options] = typeof spec === 'string' ? [spec, ''] : [spec.columns, ' WITHOUT ROWID'];
        this.db.exec(`CREATE TABLE ${physicalTable(projection.name, next, table)} (${columns})${options}`);
      }
      // A generation being rebuilt gets its secondary indexes once it has caught up (promote): building
      // an index over the loaded rows is cheaper than maintaining it through a million inserts.
      if (state === 'serving') this.createIndexes(projection, next);
      this.db
        .prepare('INSERT INTO projection_generations (name, generation, version, state) VALUES (?, ?, ?, ?)')
        .run(projection.name, next, projection.version, state);
      return next;
    }).immediate();
  }

  /** Atomically makes `generation` the serving one and drops every other generation's tables. */
  promote(projection: Projection, generation: number): void {
    this.db.transaction(() => {
      this.createIndexes(projection, generation);
      for (const row of this.generations(projection.name)) {
        if (row.generation === generation) continue;
        this.dropTables(projection, row.generation);
        this.db.prepare('DELETE FROM projection_generations WHERE name = ? AND generation = ?').run(projection.name, row.generation);
      }
      this.db
        .prepare("UPDATE projection_generations SET state = 'serving' WHERE name = ? AND generation = ?")
        .run(projection.name, generation);
    }).immediate();
  }

  discard(projection: Projection, generation: number): void {
    this.db.transaction(() => {
      this.dropTables(projection, generation);
      this.db.prepare('DELETE FROM projection_generations WHERE name = ? AND generation = ?').run(projection.name, generation);
    }).immediate();
  }

  /** Called inside the batch transaction, so rows and checkpoint commit together. */
  saveCheckpoint(name: string, generation: number, checkpoint: Position, applied: number): void {
    this.db
      .prepare('UPDATE projection_generations SET checkpoint = ?, events = events + ? WHERE name = ? AND generation = ?')
      .run(serializePosition(checkpoint), applied, name, generation);
  }

  close(): void {
    this.db.close();
  }

  private createIndexes(projection: Projection, generation: number): void {
    for (const index of projection.indexes ?? []) {
      const ddl = index.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, t: string) => physicalTable(projection.name, generation, t));
      this.db.exec(ddl.replace(/^CREATE (UNIQUE )?INDEX (?!IF NOT EXISTS)/i, 'CREATE $1INDEX IF NOT EXISTS '));
    }
  }

  private dropTables(projection: Projection, generation: number): void {
    const prefix = physicalTable(projection.name, generation, '');
    const tables = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, length(?)) = ?")
      .all(prefix, prefix) as { name: string }[];
    for (const { name } of tables) this.db.exec(`DROP TABLE ${name}`);
  }
}
