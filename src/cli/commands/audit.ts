/**
 * `seed-agents audit <sessionId>`: prints a session's Log and verifies its hash chain
 * (src/events/log-chain.ts) from the events exactly as stored.
 *
 * What is checked, event by event in stream order:
 * - `seq` is 1, 2, 3, … with no gap or repeat;
 * - the first Log event records no `prev`; every later one records the CID of the Log event before it,
 *   recomputed here from that event's stored id, type, data and metadata.
 * The first event that fails either check is named. An edit to event n shows at event n + 1: n's own
 * `prev` still matches n − 1, but the CID n + 1 recorded no longer matches n. So the chain vouches for
 * every event but the last; the printed head CID, kept somewhere else, vouches for that one.
 *
 * Legacy events — written at schema version 1, before `seq` and `prev` existed — carry no chain. They
 * are printed with the `seq` every reader derives for them and marked unchained, not treated as
 * tampering, as long as they come first: the server writes only chained events, so an unchained
 * event after a chained one is refused (rewriting an event as version 1 must not be a way around the
 * chain). The first chained event after them records the CID of the last of them, so that one is
 * covered; the earlier ones are covered by nothing.
 *
 * Exit status: 0 when nothing fails to match, 1 when an event does not match, 2 when the audit was
 * refused (bad arguments, no store, no such session, a deleted session).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../../config/config.js';
import type { EventCatalog } from '../../events/catalog/catalog.js';
import { LOG_EVENT_TYPES } from '../../events/catalog/log-events.js';
import { upcast } from '../../events/catalog/upcast.js';
import type { EventLog } from '../../events/event-log.js';
import { logEventCid } from '../../events/log-chain.js';
import { StreamNotFoundError } from '../../events/store/errors.js';
import { EVENT_STORE_FILE } from '../../events/store/open-event-store.js';
import type { RecordedEvent } from '../../events/store/types.js';
import { openLog } from '../open-log.js';
import { CliError, type Command } from '../run-cli.js';

const USAGE = 'audit <sessionId> [--data-dir DIR]';
const SUMMARY_CHARS = 60;
const LOG_TYPES: ReadonlySet<string> = new Set(LOG_EVENT_TYPES);

export interface AuditedEvent {
  id: string;
  /** The seq readers are shown: as stored, or derived for a legacy event; undefined when missing. */
  seq: number | undefined;
  line: string;
  chained: boolean;
  /** What does not match, in words; empty when the event checks out. */
  problems: string[];
}

export interface LogAudit {
  events: AuditedEvent[];
  chained: number;
  unchained: number;
  /** CID of the last Log event as stored: what an auditor keeps to vouch for it next time. */
  headCid?: string;
  firstMismatch?: AuditedEvent;
}

export const audit: Command = {
  summary: `${USAGE}  print a session's Log and verify its hash chain (exit 1 naming the first event that does not match)`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { 'data-dir': { type: 'string' } } });
    if (positionals.length !== 1 || positionals[0]!.trim() === '') {
      throw new CliError(`audit: give exactly one session id: seed-agents ${USAGE}`);
    }
    const sessionId = positionals[0]!;
    if (/[\s\p{Cc}]/u.test(sessionId) || sessionId.length > 200) {
      throw new CliError(`audit: ${JSON.stringify(sessionId)} is not a session id: one has no white space or control characters, like the UUID CreateSession answers`);
    }
    const config = loadConfig(values['data-dir'] === undefined ? process.env : { ...process.env, SEED_AGENTS_DATA_DIR: values['data-dir'] });
    refuseMissingStore(config);
    const { log, close } = await openLog(config);
    try {
      const stream = await readSession(log, sessionId);
      const created = stream.find((event) => event.type === 'SessionCreated');
      const agentId = (created?.data as { agentId?: unknown } | undefined)?.agentId;
      process.stdout.write(`session ${sessionId}${typeof agentId === 'string' ? ` (agent ${sanitize(agentId)})` : ' (no SessionCreated: a Log from before sessions were created explicitly)'}\n`);
      const result = auditLog(stream, log.catalog);
      for (const event of result.events) {
        // A long Log into a slow pipe (less, ssh) must not pile up in memory.
        if (!process.stdout.write(`${event.line}${event === result.firstMismatch ? '  <- first mismatch' : ''}\n`)) await once(process.stdout, 'drain');
      }
      const { firstMismatch } = result;
      if (firstMismatch) {
        process.stderr.write(
          `seed-agents: chain broken at seq ${firstMismatch.seq ?? '?'} (event ${sanitize(firstMismatch.id)}): ${sanitize(firstMismatch.problems.join('; '))}\n`,
        );
        return 1;
      }
      process.stdout.write(`${verdict(result)}\n`);
      if (result.headCid) process.stdout.write(`head: ${result.headCid} (keep it: it vouches for the last event, which no later event chains)\n`);
      return 0;
    } finally {
      await close();
    }
  },
};

/** Opening a SQLite store creates it; an audit of a mistyped directory must not leave an empty store there. */
function refuseMissingStore(config: Config): void {
  if (config.store !== 'sqlite') return;
  const file = config.eventsFile ?? join(config.dataDir, EVENT_STORE_FILE);
  if (!existsSync(file)) {
    throw new CliError(`audit: there is no event store at ${file}; give the server's data directory with --data-dir or SEED_AGENTS_DATA_DIR`);
  }
}

/** The session's stream as stored (not upcast: the chain covers the stored form), or a refusal saying why there is none. */
async function readSession(log: EventLog, sessionId: string): Promise<RecordedEvent[]> {
  const stream = `session-${sessionId}`;
  const events: RecordedEvent[] = [];
  try {
    for await (const event of log.store.readStream(stream)) events.push(event);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  // A deletion is recorded before the Log is removed; a crash in between leaves the events readable.
  const deleted = events.find((event) => event.type === 'SessionDeleted') ?? (events.length ? undefined : await deletion(log, stream));
  if (deleted) {
    const reason = (deleted.data as { reason?: unknown }).reason === 'agent-deleted' ? ' with its agent' : '';
    throw new CliError(`audit: session ${sessionId} was deleted${reason} at ${new Date(deleted.created).toISOString()}; its Log is removed, so there is nothing to audit`);
  }
  if (!events.length) throw new CliError(`audit: session ${sessionId} does not exist (no stream ${stream} in this store)`);
  return events;
}

/** A deleted session's stream reads as not found; `$all` still holds its SessionDeleted. */
async function deletion(log: EventLog, stream: string): Promise<RecordedEvent | undefined> {
  let found: RecordedEvent | undefined;
  for await (const event of log.store.readAll({ filter: { streamPrefixes: [stream], eventTypes: ['SessionDeleted'] } })) {
    if (event.stream === stream) found = event;
  }
  return found;
}

/** Checks a session stream's Log events, as stored, in order; other events of the stream are not part of the Log. */
export function auditLog(stream: readonly RecordedEvent[], catalog: EventCatalog): LogAudit {
  const result: LogAudit = { events: [], chained: 0, unchained: 0 };
  let previous: { raw: RecordedEvent; cid: string; seq: number | undefined } | undefined;
  for (const raw of stream) {
    if (!LOG_TYPES.has(raw.type)) continue;
    const expectedSeq = result.events.length + 1;
    const problems: string[] = [];
    const legacy = raw.metadata.v === undefined || raw.metadata.v === 1;
    let shown: { seq?: unknown; at?: unknown; actor?: unknown; signerId?: unknown } = raw.metadata;
    try {
      shown = upcast(catalog, raw).metadata;
    } catch (error) {
      problems.push(`cannot be read: ${(error as Error).message}`);
    }
    const seq = typeof shown.seq === 'number' ? shown.seq : undefined;
    if (seq !== expectedSeq) problems.push(`seq is ${seq ?? 'missing'}, expected ${expectedSeq}`);
    if (legacy) {
      result.unchained++;
      if (result.chained > 0) {
        problems.push('it is unchained (schema version 1) but follows chained events, and only events written before the chain existed are unchained');
      }
    } else {
      result.chained++;
      const prev = raw.metadata.prev;
      if (!previous) {
        if (prev !== undefined) problems.push(`it records prev ${String(prev)}, but it is the session's first Log event, which has none`);
      } else if (prev !== previous.cid) {
        problems.push(
          `prev does not match the event before it (seq ${previous.seq ?? '?'}, event ${previous.raw.id}): ` +
            `expected ${previous.cid} (its CID as stored now), found ${prev === undefined ? 'no prev' : String(prev)}`,
        );
      }
    }
    const event: AuditedEvent = { id: raw.id, seq, line: line(raw, shown, legacy), chained: !legacy, problems };
    result.events.push(event);
    if (problems.length && !result.firstMismatch) result.firstMismatch = event;
    previous = { raw, cid: logEventCid(raw), seq };
  }
  if (previous) result.headCid = previous.cid;
  return result;
}

function verdict({ chained, unchained }: LogAudit): string {
  const legacy = unchained ? `${unchained} earlier event${unchained === 1 ? '' : 's'} unchained (written before the chain existed)` : '';
  if (!chained) return unchained ? `no chain to verify: ${legacy}` : 'chain verified: 0 events (the Log is empty)';
  return `chain verified: ${chained} event${chained === 1 ? '' : 's'}${legacy ? `; ${legacy}` : ''}`;
}

/** seq, time, actor, signer, type and what happened, on one line. */
function line(raw: RecordedEvent, shown: { seq?: unknown; at?: unknown; actor?: unknown; signerId?: unknown }, legacy: boolean): string {
  const at = typeof shown.at === 'number' ? shown.at : raw.created;
  const time = Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at).toISOString() : `time ${String(at)}`;
  const signer = typeof shown.signerId === 'string' ? shortPrincipal(shown.signerId) : '-';
  const columns = [
    String(shown.seq ?? '?').padStart(5),
    time,
    clip(String(shown.actor ?? '?'), 8).padEnd(6),
    signer.padEnd(13),
    raw.type.padEnd(11),
    summary(raw.type, raw.data),
  ];
  return `${columns.join('  ')}${legacy ? '  (unchained: written before the chain existed)' : ''}`;
}

function shortPrincipal(principal: string): string {
  const clean = sanitize(principal);
  return clean.length > 13 ? `${clean.slice(0, 8)}…${clean.slice(-4)}` : clean;
}

/** A one-line account of the event; data may have been altered, so nothing about its shape is assumed. */
function summary(type: string, data: unknown): string {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const str = (value: unknown) => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));
  switch (type) {
    case 'message':
      return `${str(d.role) || '?'}: ${clip(str(d.content), SUMMARY_CHARS)}`;
    case 'tool_call':
      return `${clip(str(d.name), 40)} ${clip(str(d.input), SUMMARY_CHARS)}`.trimEnd();
    case 'tool_result':
      return `${clip(str(d.name), 40)} -> ${d.error !== undefined ? `error: ${clip(str(d.error), SUMMARY_CHARS)}` : 'ok'}`;
    case 'error':
      return clip(str(d.message), SUMMARY_CHARS);
    default:
      return clip(str(data), SUMMARY_CHARS);
  }
}

/** One line of at most `max` characters, never cut inside one. */
function clip(text: string, max: number): string {
  const chars = [...sanitize(text.replace(/\s+/g, ' ').trim())];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/**
 * The Log holds what users and models wrote: control characters and bidirectional overrides are
 * shown escaped, so an event cannot rewrite the auditor's terminal or disguise a line.
 */
function sanitize(text: string): string {
  return text.replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
