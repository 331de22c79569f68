import type { Database, Statement } from 'better-sqlite3';

const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;
const NAME = /^[a-z][a-z0-9_]*$/;

export function checkProjectionName(kind: string, name: string): void {
  if (!NAME.test(name)) {
    throw new Error(`${kind} name "${name}" must be lower-case letters, digits and underscores, starting with a letter`);
  }
}

/** The physical table of one generation of a projection: a rebuild writes a new generation. */
export function physicalTable(projection: string, generation: number, table: string): string {
  return `p_${projection}_g${generation}_${table}`;
}

/** Resolves `{table}` placeholders to one generation's tables and caches the prepared statements. */
export class GenerationSql {
  private readonly cache = new Map<string, Statement>();

  constructor(
    readonly db: Database,
    readonly projection: string,
    readonly generation: number,
    private readonly tables: readonly string[],
  ) {}

  resolve(sql: string): string {
    return sql.replace(PLACEHOLDER, (_, table: string) => {
      if (!this.tables.includes(table)) {
        throw new Error(`Projection ${this.projection} has no table {${table}}; its tables are ${this.tables.join(', ')}`);
      }
      return physicalTable(this.projection, this.generation, table);
    });
  }

  statement(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(this.resolve(sql));
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  run(sql: string, ...params: unknown[]): void {
    this.statement(sql).run(...params);
  }

  get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }
}
