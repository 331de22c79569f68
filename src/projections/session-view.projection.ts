/**
 * The session view: one row per session, kept current from its stream — its agent, title and
 * lineage, how far its Log has got, what happened last and when, and how many messages, tool calls
 * and errors it holds — plus who may list each agent's sessions (owner and accepted members).
 * Session lists and headers read it; the Log itself is read from the session stream, which is the
 * source of truth.
 */
import { LOG_EVENT_TYPES } from '../events/catalog/log-events.js';
import { serializePosition } from '../events/store/position.js';
import type { CatalogEvent } from '../events/catalog/upcast.js';
import type { Projection, ProjectionTx } from './projection.js';

export interface SessionViewRow {
  session_id: string;
  /** The agent's owner; for a Log that predates SessionCreated, the account of its first event (null if unknown). */
  account_id: string | null;
  /** Null only for a Log that predates SessionCreated: such a session is listed nowhere. */
  agent_id: string | null;
  title: string | null;
  title_source: 'user' | 'auto' | null;
  parent_session_id: string | null;
  run_id: string | null;
  /** From its runs: streaming while one is claimed or running, then idle, error or stopped as the last one ended. */
  status: 'idle' | 'streaming' | 'stopped' | 'error';
  deleted: 0 | 1;
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

const sessionId = (event: CatalogEvent): string => event.stream.slice('session-'.length);
const agentId = (event: CatalogEvent): string => event.stream.slice('agent-'.length);

function applyLogEvent(event: CatalogEvent, tx: ProjectionTx): void {
  const { seq, actor, accountId, at } = event.metadata;
  // Idempotent under redelivery: the Log's seq only grows, so an event at or below last_seq is
  // already counted.
  tx.run(
    `INSERT INTO {sessions} (session_id, account_id, deleted, last_seq, last_type, last_actor, messages, tool_calls, errors,
                             created_at, updated_at, position)
     VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET
       last_seq = excluded.last_seq, last_type = excluded.last_type, last_actor = excluded.last_actor,
       messages = messages + excluded.messages, tool_calls = tool_calls + excluded.tool_calls,
       errors = errors + excluded.errors, updated_at = excluded.updated_at, position = excluded.position
     WHERE excluded.last_seq > last_seq`,
    sessionId(event),
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
}

function applySessionEvent(event: CatalogEvent, tx: ProjectionTx): void {
  const at = event.metadata.at;
  const id = sessionId(event);
  switch (event.type) {
    case 'SessionCreated': {
      const data = event.data as { agentId: string; ownerAccountId: string; title?: string; parentSessionId?: string; runId?: string };
      tx.run(
        `INSERT INTO {sessions} (session_id, account_id, agent_id, title, parent_session_id, run_id, deleted, last_seq, last_type,
                                 last_actor, messages, tool_calls, errors, created_at, updated_at, position)
         VALUES (?, ?, ?, ?, (SELECT p.session_id FROM {sessions} p WHERE p.session_id = ? AND p.deleted = 0), ?, 0, 0, ?, ?, 0, 0, 0, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET account_id = excluded.account_id, agent_id = excluded.agent_id,
           title = excluded.title, parent_session_id = excluded.parent_session_id, run_id = excluded.run_id`,
        id,
        data.ownerAccountId,
        data.agentId,
        data.title ?? null,
        // A child of a deleted session is top-level, like the children promoted when it was deleted.
        data.parentSessionId ?? null,
        data.runId ?? null,
        event.type,
        event.metadata.actor,
        at,
        at,
        serializePosition(event.position),
      );
      return;
    }
    case 'SessionRenamed': {
      const { title, titleSource } = event.data as { title: string; titleSource: string };
      tx.run('UPDATE {sessions} SET title = ?, title_source = ?, updated_at = MAX(updated_at, ?) WHERE session_id = ?', title, titleSource, at, id);
      return;
    }
    case 'SessionDeleted':
      tx.run('UPDATE {sessions} SET deleted = 1, updated_at = MAX(updated_at, ?) WHERE session_id = ?', at, id);
      // Children promote to top level (spec: DeleteSession).
      tx.run('UPDATE {sessions} SET parent_session_id = NULL WHERE parent_session_id = ?', id);
      return;
  }
}

/** Owner and accepted members may list an agent's sessions; public readers may not (spec: SetAgentPublicRead). */
function applyAgentEvent(event: CatalogEvent, tx: ProjectionTx): void {
  const agent = agentId(event);
  const member = (event.data as { accountId?: string }).accountId;
  switch (event.type) {
    case 'AgentCreated':
      tx.run(
        "INSERT OR REPLACE INTO {audience} (agent_id, account_id, role, accepted) VALUES (?, ?, 'owner', 1)",
        agent,
        (event.data as { ownerAccountId: string }).ownerAccountId,
      );
      return;
    case 'AgentCollaboratorInvited':
      tx.run(
        `INSERT INTO {audience} (agent_id, account_id, role, accepted) VALUES (?, ?, ?, 0)
         ON CONFLICT (agent_id, account_id) DO UPDATE SET role = excluded.role`,
        agent,
        member,
        (event.data as { role: string }).role,
      );
      return;
    case 'AgentInviteAccepted':
      tx.run('UPDATE {audience} SET accepted = 1 WHERE agent_id = ? AND account_id = ?', agent, member);
      return;
    case 'AgentInviteDeclined':
    case 'AgentCollaboratorRemoved':
      tx.run('DELETE FROM {audience} WHERE agent_id = ? AND account_id = ?', agent, member);
      return;
    case 'AgentDeleted':
      tx.run('DELETE FROM {audience} WHERE agent_id = ?', agent);
      tx.run('UPDATE {sessions} SET deleted = 1 WHERE agent_id = ?', agent);
      return;
  }
}

/** A session's status is what its latest run did last. */
function applyRunEvent(event: CatalogEvent, tx: ProjectionTx): void {
  const runId = event.stream.slice('run-'.length);
  if (event.type === 'RunQueued') {
    tx.run('INSERT OR IGNORE INTO {run_sessions} (run_id, session_id) VALUES (?, ?)', runId, (event.data as { sessionId: string }).sessionId);
    return;
  }
  const reason = (event.data as { reason?: string }).reason;
  const status = event.type === 'RunSucceeded' ? 'idle' : event.type === 'RunFailed' ? 'error' : event.type === 'RunCanceled' ? (reason === 'session-stopped' ? 'stopped' : 'idle') : 'streaming';
  tx.run('UPDATE {sessions} SET status = ? WHERE session_id = (SELECT session_id FROM {run_sessions} WHERE run_id = ?)', status, runId);
}

const RUN_EVENT_TYPES = ['RunQueued', 'RunClaimed', 'RunSucceeded', 'RunFailed', 'RunCanceled'];
const SESSION_EVENT_TYPES = ['SessionCreated', 'SessionRenamed', 'SessionDeleted'];
const AGENT_EVENT_TYPES = ['AgentCreated', 'AgentCollaboratorInvited', 'AgentInviteAccepted', 'AgentInviteDeclined', 'AgentCollaboratorRemoved', 'AgentDeleted'];

export const sessionViewProjection: Projection = {
  name: 'session_view',
  version: 4,
  eventTypes: [...LOG_EVENT_TYPES, ...SESSION_EVENT_TYPES, ...AGENT_EVENT_TYPES, ...RUN_EVENT_TYPES],
  tables: {
    sessions: `session_id TEXT PRIMARY KEY, account_id TEXT, agent_id TEXT, title TEXT, title_source TEXT,
               parent_session_id TEXT, run_id TEXT, status TEXT NOT NULL DEFAULT 'idle', deleted INTEGER NOT NULL, last_seq INTEGER NOT NULL,
               last_type TEXT NOT NULL, last_actor TEXT NOT NULL, messages INTEGER NOT NULL,
               tool_calls INTEGER NOT NULL, errors INTEGER NOT NULL, created_at INTEGER NOT NULL,
               updated_at INTEGER NOT NULL, position TEXT NOT NULL`,
    run_sessions: { columns: 'run_id TEXT PRIMARY KEY, session_id TEXT NOT NULL', withoutRowid: true },
    audience: {
      columns: 'agent_id TEXT NOT NULL, account_id TEXT NOT NULL, role TEXT NOT NULL, accepted INTEGER NOT NULL, PRIMARY KEY (agent_id, account_id)',
      withoutRowid: true,
    },
  },
  indexes: [
    'CREATE INDEX {sessions}_by_agent ON {sessions} (agent_id, updated_at DESC, session_id DESC) WHERE deleted = 0',
    'CREATE INDEX {sessions}_by_parent ON {sessions} (parent_session_id) WHERE parent_session_id IS NOT NULL',
    'CREATE INDEX {audience}_by_account ON {audience} (account_id, agent_id) WHERE accepted = 1',
  ],
  writeOnly: true,
  apply(event, tx) {
    if (event.stream.startsWith('agent-')) applyAgentEvent(event, tx);
    else if (event.stream.startsWith('run-')) applyRunEvent(event, tx);
    else if (event.type.startsWith('Session')) applySessionEvent(event, tx);
    else applyLogEvent(event, tx);
  },
};
