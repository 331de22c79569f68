/**
 * Writes `$all` (or some categories) as NDJSON for analytics consumers, from a position up to the
 * head at the time it started. With `--out FILE --resume` it continues after the last complete line
 * already in FILE, so an interrupted or periodic export never repeats or skips an event.
 */
import { closeSync, existsSync, openSync, readSync, fstatSync, ftruncateSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { comparePositions, parsePosition, type Position } from '../../events/store/position.js';
import { eventLine } from '../event-line.js';
import { categoryPrefixes, openLog, positionArg } from '../open-log.js';
import { CliError, type Command } from '../run-cli.js';

export const exportEvents: Command = {
  summary:
    'export [--after POS | --from POS] [--category C]… [--type T]… [--out FILE [--resume]]  write events as NDJSON',
  async run(args) {
    const { values } = parseArgs({
      args,
      strict: true,
      options: {
        from: { type: 'string' },
        after: { type: 'string' },
        category: { type: 'string', multiple: true },
        type: { type: 'string', multiple: true },
        out: { type: 'string' },
        resume: { type: 'boolean', default: false },
      },
    });
    const starts = [values.from, values.after, values.resume ? 'resume' : undefined].filter((v) => v !== undefined);
    if (starts.length > 1) throw new CliError('export: give at most one of --from, --after and --resume');
    if (values.resume && !values.out) throw new CliError('export: --resume needs --out FILE to resume from');

    let fd: number | null = null;
    let after: Position | null = values.after ? positionArg('--after', values.after) : null;
    if (values.out) {
      if (values.resume && existsSync(values.out)) {
        const existing = openSync(values.out, 'r+');
        try {
          after = resumePoint(existing, values.out);
        } finally {
          closeSync(existing);
        }
      }
      fd = openSync(values.out, values.resume ? 'a' : 'w', 0o644);
    }
    const { log, close } = await openLog();
    let written = 0;
    try {
      const head = await log.store.headPosition();
      const prefixes = categoryPrefixes(values.category);
      const filter = {
        ...(prefixes ? { streamPrefixes: prefixes } : {}),
        ...(values.type?.length ? { eventTypes: values.type } : {}),
      };
      const from = values.from ? positionArg('--from', values.from) : (after ?? 'start');
      // To stdout, wait for the pipe to drain: otherwise a slow reader (gzip, ssh) would leave the
      // whole export buffered in memory.
      const write = async (line: string) => {
        if (fd !== null) writeSync(fd, line);
        else if (!process.stdout.write(line)) await once(process.stdout, 'drain');
      };
      if (head) {
        for await (const event of log.readAll({ from, filter })) {
          if (comparePositions(event.position, head) > 0) break;
          // `--after` and `--resume` are exclusive; readAll starts at the given position itself.
          if (after && comparePositions(event.position, after) <= 0) continue;
          await write(`${eventLine(event, 'json')}\n`);
          written++;
        }
      }
    } finally {
      if (fd !== null) closeSync(fd);
      await close();
    }
    process.stderr.write(`exported ${written} events${values.out ? ` to ${values.out}` : ''}\n`);
    return 0;
  },
};

/**
 * The position of the last complete line of an export file. A line cut short by a crash is removed,
 * so the export continues from the last event written whole.
 */
function resumePoint(fd: number, path: string): Position | null {
  const size = fstatSync(fd).size;
  if (size === 0) return null;
  const chunk = Buffer.alloc(Math.min(size, 4 << 20));
  const offset = size - chunk.length;
  readSync(fd, chunk, 0, chunk.length, offset);
  const end = chunk.lastIndexOf(0x0a);
  if (end < 0) throw new CliError(`export: ${path} has no complete line in its last 4 MiB; cannot tell where to resume`);
  const start = end === 0 ? 0 : chunk.lastIndexOf(0x0a, end - 1) + 1;
  ftruncateSync(fd, offset + end + 1);
  const line = chunk.subarray(start, end).toString('utf8');
  try {
    return parsePosition((JSON.parse(line) as { position: string }).position);
  } catch (error) {
    throw new CliError(`export: the last line of ${path} is not an exported event (${(error as Error).message})`);
  }
}
