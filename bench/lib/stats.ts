/** Small timing helpers for the benchmarks: percentiles, rates and table formatting. */

/** Nearest-rank percentile of an already sorted array (p in 0..100). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface RateRow {
  name: string;
  events: number;
  seconds: number;
  /** events/s of the reference figure, when a ratio is meaningful. */
  baseline?: number;
  note?: string;
}

const COLS = [34, 10, 9, 13, 9];

export function printHeader(): void {
  const cells = ['scenario', 'events', 'seconds', 'events/s', 'ratio'];
  console.log(cells.map((c, i) => (i === 0 ? c.padEnd(COLS[i]!) : c.padStart(COLS[i]!))).join(' ') + '  note');
  console.log('-'.repeat(COLS.reduce((a, b) => a + b + 1, 0) + 5));
}

/** Prints one table line and returns the rate in events/s. */
export function printRate(row: RateRow): number {
  const rate = row.events / row.seconds;
  const ratio = row.baseline ? (rate / row.baseline).toFixed(3) : '';
  const cells = [
    row.name.padEnd(COLS[0]!),
    row.events.toLocaleString('en-US').padStart(COLS[1]!),
    row.seconds.toFixed(3).padStart(COLS[2]!),
    Math.round(rate).toLocaleString('en-US').padStart(COLS[3]!),
    ratio.padStart(COLS[4]!),
  ];
  console.log(cells.join(' ') + (row.note ? `  ${row.note}` : ''));
  return rate;
}

export function printLine(name: string, text: string): void {
  console.log(`${name.padEnd(COLS[0]!)} ${text}`);
}

export function nowSeconds(): number {
  return performance.now() / 1000;
}

export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
