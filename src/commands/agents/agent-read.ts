/** The agents read model as the wire shows it, and the checks of the agent ids actions carry. */
import { ApiError } from '../../protocol/api-error.js';
import type { AgentInfo } from '../../protocol/agents.js';
import type { AgentRow } from '../../projections/agents.projection.js';
import { describe } from '../accounts/credentials-input.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function parseAgentId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) {
    throw new ApiError(400, `${field} must be an agent id as CreateAgent answered it (a lower-case UUID), got ${describe(value)}`);
  }
  return value;
}

/** Only owners so far: collaborators' roles arrive with sharing. */
export function ownerInfo(row: AgentRow): AgentInfo {
  return {
    id: row.id,
    accountId: row.owner_account_id,
    name: row.name,
    definition: JSON.parse(row.definition) as AgentInfo['definition'],
    systemPromptBlocks: JSON.parse(row.system_prompt_blocks) as AgentInfo['systemPromptBlocks'],
    accessRole: 'owner',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
