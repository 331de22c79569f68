/**
 * The session view: one row per session, kept current from its Log — how far the Log has got, what
 * happened last and when, and how many messages, tool calls and errors it holds. Session lists and
 * headers read it; the Log itself is read from the session stream, which is the source of truth.
 */
import { LOG_EVENT_TYPES } from '../events/catalog/log-events.js';
import { serializePosition } from '../events/store/position.js';
import type { Projection } from './projection.js';

export interface SessionViewRow {
  session_id: string;
  /** Null for sessions whose Log predates account stamping. */
  account_id: string | null;
  last_seq: number;
  last_type: string;
  last_actor: string;
  messages: number;
  tool_calls: number;
  errors: number;
  created_at: number;
  updated_at: number;
  position: string;
}

export const sessionViewProjection: Projection = {
  name: 'session_view',
  version: 1,
  eventTypes: LOG_EVENT_TYPES,
  tables: {
    sessions: `session_id TEXT PRIMARY KEY, account_id TEXT, last_seq INTEGER NOT NULL,
               last_type TEXT NOT NULL, last_actor TEXT NOT NULL, messages INTEGER NOT NULL,
               tool_calls INTEGER NOT NULL, errors INTEGER NOT NULL, created_at INTEGER NOT NULL,
               updated_at INTEGER NOT NULL, position TEXT NOT NULL`,
  },
  indexes: ['CREATE INDEX {sessions}_by_account ON {sessions} (account_id, updated_at DESC)'],
  writeOnly: true,
  apply(event, tx) {
    const { seq, actor, accountId, at } = event.metadata;
    // Idempotent under redelivery: the Log's seq only grows, so an event at or below last_seq is
    // already counted.
    tx.run(
      `INSERT INTO {sessions} (session_id, account_id, last_seq, last_type, last_actor, messages, tool_calls, errors,
                               created_at, updated_at, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET
         last_seq = excluded.last_seq, last_type = excluded.last_type, last_actor = excluded.last_actor,
         messages = messages + excluded.messages, tool_calls = tool_calls + excluded.tool_calls,
         errors = errors + excluded.errors, updated_at = excluded.updated_at, position = excluded.position
       WHERE excluded.last_seq > last_seq`,
      event.stream.slice('session-'.length),
      accountId ?? null,
      seq,
      event.type,
      actor,
      event.type === 'message' ? 1 : 0,
      event.type === 'tool_call' ? 1 : 0,
      event.type === 'error' ? 1 : 0,
      at,
      at,
      serializePosition(event.position),
    );
  },
};
