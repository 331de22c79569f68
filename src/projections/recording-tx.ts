import type { ProjectionTx } from './projection.js';
import type { GenerationSql } from './table-names.js';

/**
 * A ProjectionTx that records writes instead of running them, for projections that declare
 * `writeOnly`: their rebuild hands the recorded batch to a writer thread while this thread reads on.
 * Ops are flat — `[sqlIndex, paramCount, ...params]` — and each SQL text is sent once, because
 * copying them between threads per op would cost more than the writes.
 */
export class RecordingTx implements ProjectionTx {
  private readonly sqlIndex = new Map<string, number>();
  private newSql: string[] = [];
  private ops: unknown[] = [];

  constructor(private readonly sql: GenerationSql) {}

  get db(): never {
    throw new Error(`Projection ${this.sql.projection} is writeOnly: it may only write through tx.run`);
  }

  run(sql: string, ...params: unknown[]): void {
    let index = this.sqlIndex.get(sql);
    if (index === undefined) {
      index = this.sqlIndex.size;
      this.sqlIndex.set(sql, index);
      this.newSql.push(this.sql.resolve(sql));
    }
    const ops = this.ops;
    ops.push(index, params.length);
    for (let i = 0; i < params.length; i++) ops.push(params[i]);
  }

  get<T>(): T | undefined {
    throw new Error(`Projection ${this.sql.projection} is writeOnly but read its tables (tx.get)`);
  }

  all<T>(): T[] {
    throw new Error(`Projection ${this.sql.projection} is writeOnly but read its tables (tx.all)`);
  }

  /** The ops recorded since the last take, with the SQL texts the writer has not seen yet. */
  take(): { sql: string[]; ops: unknown[] } {
    const batch = { sql: this.newSql, ops: this.ops };
    this.newSql = [];
    this.ops = [];
    return batch;
  }
}
