/**
 * A session's stream as a turn reads it: the session's state and its Log in seq order, each entry
 * with its actor and the run that appended it (its `causationId`). A turn re-reads it at every pass,
 * so what it replays, resumes from and owes is always what the store holds.
 */
import type { EventLog } from '../../events/event-log.js';
import { upcast } from '../../events/catalog/upcast.js';
import { StreamNotFoundError } from '../../events/store/errors.js';
import { evolveSession, isLogEvent, type SessionState } from '../../commands/sessions/session-state.js';
import { sessionStream } from '../../commands/sessions/session-stream.js';
import type { LogEntry, LogPayload } from '../transcript/log-entry.js';

export interface TurnLog {
  /** Null when the session never existed or was deleted. */
  session: SessionState | null;
  entries: LogEntry[];
  /** Entry id → what caused it: a run id for the runtime's events, an action CID for a person's. */
  causes: ReadonlyMap<string, string>;
  /** The stream revision this was read at: a later read given this one starts after it. */
  revision?: bigint;
}

/**
 * The session's stream as a turn reads it. Given an earlier read of the same session, only the events
 * appended since are read, so a long session costs a turn its new events, not its whole length; the
 * earlier read is left as it was.
 */
export async function readTurnLog(log: EventLog, sessionId: string, since?: TurnLog): Promise<TurnLog> {
  const resume = since?.session && since.revision !== undefined ? since : undefined;
  let session: SessionState | null = resume?.session ?? null;
  const entries: LogEntry[] = resume ? [...resume.entries] : [];
  const causes = new Map<string, string>(resume?.causes ?? []);
  let revision = resume?.revision;
  try {
    for await (const raw of log.store.readStream(sessionStream(sessionId), { from: revision === undefined ? 'start' : revision + 1n })) {
      const event = upcast(log.catalog, raw);
      session = evolveSession(session, event, sessionId);
      revision = raw.revision;
      if (!isLogEvent(event.type)) continue;
      entries.push({
        id: event.id,
        seq: event.metadata.seq!,
        actor: event.metadata.actor,
        createdAt: event.metadata.at,
        event: { type: event.type, ...(event.data as object) } as LogPayload,
      });
      causes.set(event.id, event.metadata.causationId);
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
    return { session: null, entries: [], causes: new Map() };
  }
  if (session?.deleted) return { session: null, entries, causes };
  return { session, entries, causes, ...(revision === undefined ? {} : { revision }) };
}

/** The entries one run appended, in order. */
export function entriesOfRun(turnLog: TurnLog, runId: string): LogEntry[] {
  return turnLog.entries.filter((entry) => turnLog.causes.get(entry.id) === runId);
}
