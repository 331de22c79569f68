/**
 * The session Log as clients read it (GetSession, the `append` frames): one row per Log event,
 * keyed by session and `seq`, with the payload in the wire shape (`{type, ...data, actor}`).
 */
import { LOG_EVENT_TYPES } from '../events/catalog/log-events.js';
import { serializePosition } from '../events/store/position.js';
import type { Projection } from './projection.js';

export interface SessionLogRow {
  session_id: string;
  seq: number;
  event_id: string;
  type: string;
  actor: string;
  payload: string;
  created_at: number;
  position: string;
}

export const sessionLogProjection: Projection = {
  name: 'session_log',
  version: 1,
  eventTypes: LOG_EVENT_TYPES,
  tables: {
    log: `session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL, type TEXT NOT NULL,
          actor TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, position TEXT NOT NULL,
          PRIMARY KEY (session_id, seq)`,
  },
  apply(event, tx) {
    const sessionId = event.stream.slice('session-'.length);
    const payload = { type: event.type, ...(event.data as object), actor: event.metadata.actor };
    tx.run(
      `INSERT OR REPLACE INTO {log} (session_id, seq, event_id, type, actor, payload, created_at, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      sessionId,
      event.metadata.seq,
      event.id,
      event.type,
      event.metadata.actor,
      JSON.stringify(payload),
      event.metadata.at,
      serializePosition(event.position),
    );
  },
};
