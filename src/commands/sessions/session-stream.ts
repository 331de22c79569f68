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

/**
 * The session folded from its stream, and the revision it was read at. A deleted session's stream is
 * soft-deleted, so it reads as no session at all. The last Log event's CID is taken from the event
 * as stored, which is what the chain covers.
 */
export async function loadSession(
  log: EventLog,
  sessionId: string,
): Promise<{ session: SessionState | null; revision: bigint | 'no_stream' }> {
  let session: SessionState | null = null;
  let revision: bigint | 'no_stream' = 'no_stream';
  let lastLog: RecordedEvent | undefined;
  try {
    for await (const raw of log.store.readStream(sessionStream(sessionId))) {
      session = evolveSession(session, upcast(log.catalog, raw), sessionId);
      revision = raw.revision;
      if (isLogEvent(raw.type)) lastLog = raw;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
    return { session: null, revision: 'no_stream' };
  }
  if (session && lastLog) session.lastLogCid = logEventCid(lastLog);
  return { session, revision };
}
