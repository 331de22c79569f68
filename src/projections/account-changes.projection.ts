/**
 * What each account must be told when the log changes — the `account/<id>` change frames the
 * WebSocket layer fans out (`{reason, agentId?}`). A projection of the log, not a side channel: rows
 * are keyed by the event that caused them, so a subscriber resumes after the last one it saw, and a
 * rebuild yields the same notifications.
 *
 * An agent's audience (owner, accepted collaborators) is kept here too, so that a change to an agent
 * reaches everyone who can see it, not only the account that made it.
 */
import type { CatalogEvent } from '../events/catalog/upcast.js';
import type { Projection, ProjectionTx } from './projection.js';

export interface AccountChangeRow {
  id: number;
  account_id: string;
  reason: string;
  agent_id: string | null;
  session_id: string | null;
  event_id: string;
  at: number;
}

const ACCOUNT_REASONS: Readonly<Record<string, string>> = {
  SignerAuthorized: 'signers-changed',
  SecretSet: 'secrets-changed',
  SecretDeleted: 'secrets-changed',
  ModelProviderSet: 'providers-changed',
  ModelProviderDeleted: 'providers-changed',
};

function notify(tx: ProjectionTx, event: CatalogEvent, account: string, reason: string, agentId: string | null, sessionId: string | null = null): void {
  tx.run(
    'INSERT OR IGNORE INTO {changes} (account_id, reason, agent_id, session_id, event_id, at) VALUES (?, ?, ?, ?, ?, ?)',
    account,
    reason,
    agentId,
    sessionId,
    event.id,
    event.metadata.at,
  );
}

function audience(tx: ProjectionTx, agentId: string): string[] {
  return tx.all<{ account_id: string }>('SELECT account_id FROM {audience} WHERE agent_id = ? ORDER BY account_id', agentId).map((r) => r.account_id);
}

function owner(tx: ProjectionTx, agentId: string): string | undefined {
  return tx.get<{ account_id: string }>("SELECT account_id FROM {audience} WHERE agent_id = ? AND role = 'owner'", agentId)?.account_id;
}

const SESSION_REASONS: Readonly<Record<string, string>> = {
  SessionCreated: 'session-created',
  SessionRenamed: 'session-updated',
  SessionDeleted: 'session-deleted',
};

/**
 * Session changes reach the agent's audience. A session's agent is recorded when it is created, so
 * later events of the session find it; only words said (user and assistant messages) count as
 * activity — tool traffic would flood every list page with refreshes that change nothing it shows.
 */
function applySessionChange(event: CatalogEvent, tx: ProjectionTx): void {
  const sessionId = event.stream.slice('session-'.length);
  if (event.type === 'SessionCreated') {
    tx.run('INSERT OR IGNORE INTO {session_agents} (session_id, agent_id) VALUES (?, ?)', sessionId, (event.data as { agentId: string }).agentId);
  }
  const reason = SESSION_REASONS[event.type] ?? ((event.data as { role?: string }).role === 'tool' ? undefined : 'session-activity');
  const agentId = tx.get<{ agent_id: string }>('SELECT agent_id FROM {session_agents} WHERE session_id = ?', sessionId)?.agent_id;
  if (reason === undefined || agentId === undefined) return;
  for (const account of audience(tx, agentId)) notify(tx, event, account, reason, agentId, sessionId);
}

export const accountChangesProjection: Projection = {
  name: 'account_changes',
  version: 3,
  eventTypes: [
    ...Object.keys(SESSION_REASONS),
    'message',
    ...Object.keys(ACCOUNT_REASONS),
    'AgentCreated',
    'AgentUpdated',
    'AgentDeleted',
    'AgentCollaboratorInvited',
    'AgentInviteAccepted',
    'AgentInviteDeclined',
    'AgentCollaboratorRemoved',
    'AgentPublicReadSet',
    'AgentPublicChatSet',
  ],
  tables: {
    changes: `id INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, reason TEXT NOT NULL, agent_id TEXT, session_id TEXT,
              event_id TEXT NOT NULL, at INTEGER NOT NULL, UNIQUE (event_id, account_id, reason)`,
    session_agents: { columns: 'session_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL', withoutRowid: true },
    audience: 'agent_id TEXT NOT NULL, account_id TEXT NOT NULL, role TEXT NOT NULL, PRIMARY KEY (agent_id, account_id)',
  },
  indexes: ['CREATE INDEX {changes}_by_account ON {changes} (account_id, id)'],
  apply(event, tx) {
    if (event.stream.startsWith('session-')) {
      applySessionChange(event, tx);
      return;
    }
    const accountReason = ACCOUNT_REASONS[event.type];
    if (accountReason) {
      notify(tx, event, event.stream.slice('account-'.length), accountReason, null);
      return;
    }
    const agentId = event.stream.slice('agent-'.length);
    const member = (event.data as { accountId?: string }).accountId;
    const toOwner = (reason: string) => {
      const id = owner(tx, agentId);
      if (id !== undefined) notify(tx, event, id, reason, agentId);
    };
    switch (event.type) {
      case 'AgentCreated': {
        const ownerId = (event.data as { ownerAccountId: string }).ownerAccountId;
        tx.run("INSERT OR IGNORE INTO {audience} (agent_id, account_id, role) VALUES (?, ?, 'owner')", agentId, ownerId);
        notify(tx, event, ownerId, 'agent-created', agentId);
        return;
      }
      case 'AgentUpdated':
      case 'AgentPublicReadSet':
      case 'AgentPublicChatSet':
        for (const account of audience(tx, agentId)) notify(tx, event, account, 'agent-updated', agentId);
        return;
      case 'AgentDeleted':
        for (const account of audience(tx, agentId)) notify(tx, event, account, 'agent-deleted', agentId);
        tx.run('DELETE FROM {audience} WHERE agent_id = ?', agentId);
        return;
      case 'AgentCollaboratorInvited': {
        // An invitation to an account already in — a member whose role changed — changes what it sees of the agent.
        const isMember = tx.get('SELECT 1 FROM {audience} WHERE agent_id = ? AND account_id = ?', agentId, member) !== undefined;
        notify(tx, event, member!, isMember ? 'agent-updated' : 'agent-invited', agentId);
        toOwner('agent-collaborators-changed');
        return;
      }
      case 'AgentInviteAccepted':
        tx.run("INSERT OR IGNORE INTO {audience} (agent_id, account_id, role) VALUES (?, ?, 'member')", agentId, member);
        notify(tx, event, member!, 'agent-shared', agentId);
        toOwner('agent-collaborators-changed');
        return;
      case 'AgentInviteDeclined':
        toOwner('agent-collaborators-changed');
        return;
      case 'AgentCollaboratorRemoved':
        tx.run("DELETE FROM {audience} WHERE agent_id = ? AND account_id = ? AND role = 'member'", agentId, member);
        notify(tx, event, member!, 'agent-access-removed', agentId);
        toOwner('agent-collaborators-changed');
        return;
      default:
        throw new Error(`account_changes has no rule for ${event.type}`);
    }
  },
};
