/** Reading and appending a session's `session-<id>` stream. */
import type { EventLog } from '../../events/event-log.js';
import { upcast } from '../../events/catalog/upcast.js';
import { StreamNotFoundError } from '../../events/store/errors.js';
import type { RecordedEvent } from '../../events/store/types.js';
import { logEventCid } from '../../events/log-chain.js';
import { uuidFrom } from '../action-context.js';
import type { ActionContext } from '../action-registry.js';
import { evolveSession, isLogEvent, type SessionState } from './session-state.js';

export const sessionStream = (sessionId: string): string => `session-${sessionId}`;

/** The id of the session a CreateSession makes: from its client request id when it has one. */
export function newSessionId(context: ActionContext, random: () => string): string {
  if (context.requestKey === undefined) return random();
  return uuidFrom(`${context.requestKey}:session`);
}

export interface LoadedSession {
  session: SessionState | null;
  /** The revision the session was read at; `no_stream` when it has none (or was deleted). */
  revision: bigint | 'no_stream';
}

/**
 * The session folded from its stream. Given what an earlier load returned, only the events since are
 * read, so a long session costs its new events, not its length. A deleted session's stream is
 * soft-deleted, so it reads as no session at all. The last Log event's CID is taken from the event as
 * stored, which is what the chain covers.
 */
export async function loadSession(log: EventLog, sessionId: string, since?: LoadedSession): Promise<LoadedSession> {
  let session = since?.session ?? null;
  let revision: bigint | 'no_stream' = since?.revision ?? 'no_stream';
  let lastLog: RecordedEvent | undefined;
  try {
    const from = revision === 'no_stream' ? 'start' : revision + 1n;
    for await (const raw of log.store.readStream(sessionStream(sessionId), { from })) {
      session = evolveSession(session, upcast(log.catalog, raw), sessionId);
      revision = raw.revision;
      if (isLogEvent(raw.type)) lastLog = raw;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
    return { session: null, revision: 'no_stream' };
  }
  if (session && lastLog) session = { ...session, lastLogCid: logEventCid(lastLog) };
  return { session, revision };
}
