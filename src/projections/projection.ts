import type { Database } from 'better-sqlite3';
import type { CatalogEvent } from '../events/catalog/upcast.js';

/**
 * A read model built from the log. Deterministic, idempotent (delivery is at-least-once), and with
 * no I/O beyond its own tables, so it can be dropped and rebuilt from the log at any time.
 */
export interface Projection {
  /** Lower-case letters, digits and underscores; names its tables and checkpoint. */
  name: string;
  /** Bump it when the tables or `apply` change: the projection is rebuilt from the start of the log. */
  version: number;
  /** The event types `apply` is called for; every other event only moves the checkpoint. */
  eventTypes: readonly string[];
  /**
   * Logical table name → column definitions, e.g. `id TEXT PRIMARY KEY, name TEXT`. Each rebuild gets
   * fresh physical tables; SQL refers to them as `{name}`.
   */
  tables: Readonly<Record<string, TableSpec>>;
  /** Index definitions over `{table}` placeholders, e.g. `CREATE INDEX {log}_by_type ON {log} (type)`. */
  indexes?: readonly string[];
  /**
   * `apply` only writes (tx.run), never reads its tables: a rebuild may then record its writes on
   * one thread and commit them on another, reading the log while the last batch is written.
   */
  writeOnly?: boolean;
  apply(event: CatalogEvent, tx: ProjectionTx): void;
}

/** Column definitions, or with `withoutRowid` for tables clustered on their primary key. */
export type TableSpec = string | { columns: string; withoutRowid: true };

/** What `apply` writes through. SQL names tables as `{logical}`; statements are prepared once. */
export interface ProjectionTx {
  run(sql: string, ...params: unknown[]): void;
  get<T>(sql: string, ...params: unknown[]): T | undefined;
  all<T>(sql: string, ...params: unknown[]): T[];
  readonly db: Database;
}
