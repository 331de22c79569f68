/** The agents read model as the wire shows it, the access roles it grants, and the checks of the agent ids actions carry. */
import { parseUuid } from '../parse-id.js';
import type { AgentAccessRole, AgentInfo } from '../../protocol/agents.js';
import type { AgentMemberRow, AgentRow } from '../../projections/agents.projection.js';
import type { ProjectionService } from '../../projections/projection-service.js';
import { agentView } from './agent-state.js';

export const parseAgentId = (value: unknown, field: string): string => parseUuid(value, field, 'an agent id as CreateAgent answered it');

/** The agent as an account with `role` on it sees it, from its read-model row. */
export function agentInfo(row: AgentRow, role: AgentAccessRole): AgentInfo {
  return agentView(
    {
      id: row.id,
      ownerAccountId: row.owner_account_id,
      definition: JSON.parse(row.definition) as AgentInfo['definition'],
      systemPromptBlocks: JSON.parse(row.system_prompt_blocks) as AgentInfo['systemPromptBlocks'],
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      publicRead: Boolean(row.public_read),
      publicChat: Boolean(row.public_chat),
    },
    role,
  );
}

/**
 * The role of `account` on the agent as the read model has it: owner, an accepted member's role, or
 * reader/chatter through public access. Null for a missing or deleted agent and for an account that
 * may not see it — a pending invitee included (spec: agent contents stay hidden until accepted).
 */
export function readAccess(projections: ProjectionService, agentId: string, account: string): { row: AgentRow; role: AgentAccessRole } | null {
  const row = projections
    .reader('agents')
    .get<AgentRow & { member_role: AgentMemberRow['role'] | null; member_accepted: 0 | 1 | null }>(
      `SELECT a.*, m.role AS member_role, m.accepted AS member_accepted FROM {agents} a
       LEFT JOIN {agent_members} m ON m.agent_id = a.id AND m.account_id = ?
       WHERE a.id = ? AND a.deleted = 0`,
      account,
      agentId,
    );
  if (!row) return null;
  const { member_role, member_accepted, ...agent } = row;
  if (agent.owner_account_id === account) return { row: agent, role: 'owner' };
  if (member_role && member_accepted) return { row: agent, role: member_role };
  if (agent.public_read) return { row: agent, role: agent.public_chat ? 'chatter' : 'reader' };
  return null;
}
