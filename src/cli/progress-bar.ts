/** A one-line progress bar on stderr: done fraction, count, rate and time left. */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(processed: number, fraction: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const clamped = Math.max(0, Math.min(1, fraction));
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? processed / seconds : 0;
    const eta = clamped > 0 && clamped < 1 ? (seconds / clamped) * (1 - clamped) : 0;
    const width = 30;
    const filled = Math.round(clamped * width);
    const line =
      `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(clamped * 100).toFixed(1).padStart(5)}%  ` +
      `${processed.toLocaleString('en-US')} events  ${Math.round(rate).toLocaleString('en-US')} events/s  ETA ${formatSeconds(eta)}`;
    this.out.write(this.out.isTTY ? `\r${line}` : `${line}\n`);
  }

  finish(processed: number): { seconds: number; rate: number } {
    this.update(processed, 1, true);
    if (this.out.isTTY) this.out.write('\n');
    const seconds = (Date.now() - this.started) / 1000;
    return { seconds, rate: seconds > 0 ? processed / seconds : processed };
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${Math.ceil(s % 60)}s` : `${Math.floor(m / 60)}h${m % 60}m`;
}
