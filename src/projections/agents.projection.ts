/** Every agent, one row each, deleted ones kept flagged: what GetAgent and ListAgents answer from. */
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
}

export const agentsProjection: Projection = {
  name: 'agents',
  version: 1,
  eventTypes: ['AgentCreated', 'AgentUpdated', 'AgentDeleted'],
  writeOnly: true,
  tables: {
    agents: `id TEXT PRIMARY KEY, owner_account_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
             system_prompt_blocks TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
             updated_commit INTEGER NOT NULL, updated_prepare INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0`,
  },
  indexes: ['CREATE INDEX {agents}_by_owner ON {agents} (owner_account_id, deleted, updated_at, updated_commit, updated_prepare)'],
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
    }
  },
};
