import type { AllFilter } from '../types.js';

/** The same filter as compileFilter, as a SQL condition over the events table, so SQLite skips rows. */
export function filterToSql(filter: AllFilter | undefined): { sql: string; params: string[] } {
  const clauses: string[] = [];
  const params: string[] = [];
  if (filter?.streamPrefixes?.length) {
    clauses.push(`(${filter.streamPrefixes.map(() => 'substr(stream, 1, length(?)) = ?').join(' OR ')})`);
    for (const p of filter.streamPrefixes) params.push(p, p);
  }
  if (filter?.eventTypes?.length) {
    clauses.push(`type IN (${filter.eventTypes.map(() => '?').join(', ')})`);
    params.push(...filter.eventTypes);
  }
  return { sql: clauses.length ? ` AND ${clauses.join(' AND ')}` : '', params };
}
