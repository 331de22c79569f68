/**
 * Every agent, one row each, deleted ones kept flagged, with its public flags; and every invitation
 * to one, pending or accepted: what GetAgent, ListAgents and the sharing reads answer from.
 */
import type { Projection } from './projection.js';

export interface AgentRow {
  id: string;
  owner_account_id: string;
  name: string;
  /** AgentDefinition as JSON. */
  definition: string;
  /** AgentPromptBlock[] as JSON. */
  system_prompt_blocks: string;
  created_at: number;
  updated_at: number;
  /** The `$all` position of the last change: breaks ties of updated_at in log order. */
  updated_commit: number;
  updated_prepare: number;
  deleted: 0 | 1;
  public_read: 0 | 1;
  public_chat: 0 | 1;
}

export interface AgentMemberRow {
  agent_id: string;
  account_id: string;
  role: 'reader' | 'writer';
  accepted: 0 | 1;
  created_at: number;
  updated_at: number;
}

const MEMBER_EVENTS = ['AgentCollaboratorInvited', 'AgentInviteAccepted', 'AgentInviteDeclined', 'AgentCollaboratorRemoved'];

export const agentsProjection: Projection = {
  name: 'agents',
  version: 2,
  eventTypes: ['AgentCreated', 'AgentUpdated', 'AgentDeleted', ...MEMBER_EVENTS, 'AgentPublicReadSet', 'AgentPublicChatSet'],
  writeOnly: true,
  tables: {
    agents: `id TEXT PRIMARY KEY, owner_account_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
             system_prompt_blocks TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
             updated_commit INTEGER NOT NULL, updated_prepare INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
             public_read INTEGER NOT NULL DEFAULT 0, public_chat INTEGER NOT NULL DEFAULT 0`,
    agent_members: `agent_id TEXT NOT NULL, account_id TEXT NOT NULL, role TEXT NOT NULL, accepted INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (agent_id, account_id)`,
  },
  indexes: [
    'CREATE INDEX {agents}_by_owner ON {agents} (owner_account_id, deleted, updated_at, updated_commit, updated_prepare)',
    'CREATE INDEX {agent_members}_by_account ON {agent_members} (account_id, accepted)',
  ],
  apply(event, tx) {
    const id = event.stream.slice('agent-'.length);
    const at = event.metadata.at;
    const { commit, prepare } = event.position;
    switch (event.type) {
      case 'AgentCreated': {
        const data = event.data as { ownerAccountId: string; definition: { name: string }; systemPromptBlocks: unknown };
        // Delivery is at-least-once: a created agent seen again is no reset of its later changes.
        tx.run(
          `INSERT INTO {agents} (id, owner_account_id, name, definition, system_prompt_blocks, created_at, updated_at,
                                 updated_commit, updated_prepare)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
          id,
          data.ownerAccountId,
          data.definition.name,
          JSON.stringify(data.definition),
          JSON.stringify(data.systemPromptBlocks),
          at,
          at,
          commit,
          prepare,
        );
        return;
      }
      case 'AgentUpdated': {
        const data = event.data as { definition: { name: string }; systemPromptBlocks: unknown };
        tx.run(
          `UPDATE {agents} SET name = ?, definition = ?, system_prompt_blocks = ?, updated_at = ?, updated_commit = ?, updated_prepare = ?
           WHERE id = ?`,
          data.definition.name,
          JSON.stringify(data.definition),
          JSON.stringify(data.systemPromptBlocks),
          at,
          commit,
          prepare,
          id,
        );
        return;
      }
      case 'AgentDeleted':
        tx.run('UPDATE {agents} SET deleted = 1, updated_at = ?, updated_commit = ?, updated_prepare = ? WHERE id = ?', at, commit, prepare, id);
        return;
      case 'AgentCollaboratorInvited': {
        const data = event.data as { accountId: string; role: string };
        // A member's role changes; an accepted member stays accepted.
        tx.run(
          `INSERT INTO {agent_members} (agent_id, account_id, role, accepted, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)
           ON CONFLICT (agent_id, account_id) DO UPDATE SET role = excluded.role, updated_at = excluded.updated_at`,
          id,
          data.accountId,
          data.role,
          at,
          at,
        );
        return;
      }
      case 'AgentInviteAccepted':
        tx.run(
          'UPDATE {agent_members} SET accepted = 1, updated_at = ? WHERE agent_id = ? AND account_id = ?',
          at,
          id,
          (event.data as { accountId: string }).accountId,
        );
        return;
      case 'AgentInviteDeclined':
      case 'AgentCollaboratorRemoved':
        tx.run('DELETE FROM {agent_members} WHERE agent_id = ? AND account_id = ?', id, (event.data as { accountId: string }).accountId);
        return;
      case 'AgentPublicReadSet': {
        const on = (event.data as { publicRead: boolean }).publicRead ? 1 : 0;
        // Turning public read off clears public chat too.
        tx.run('UPDATE {agents} SET public_read = ?, public_chat = public_chat * ? WHERE id = ?', on, on, id);
        return;
      }
      case 'AgentPublicChatSet':
        tx.run('UPDATE {agents} SET public_chat = ? WHERE id = ?', (event.data as { publicChat: boolean }).publicChat ? 1 : 0, id);
        return;
    }
  },
};
