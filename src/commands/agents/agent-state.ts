/** One agent as its `agent-<id>` stream has it: the state the agent deciders decide against. */
import type { AgentDefinition, AgentInfo, AgentPromptBlock } from '../../protocol/agents.js';

export interface AgentState {
  id: string;
  ownerAccountId: string;
  definition: AgentDefinition;
  systemPromptBlocks: AgentPromptBlock[];
  createdAt: number;
  updatedAt: number;
  deleted: boolean;
}

export function evolveAgent(
  state: AgentState | null,
  event: { type: string; data: unknown; metadata: { at: number } },
  agentId: string,
): AgentState | null {
  const at = event.metadata.at;
  switch (event.type) {
    case 'AgentCreated': {
      const data = event.data as { ownerAccountId: string; definition: AgentDefinition; systemPromptBlocks: AgentPromptBlock[] };
      return { id: agentId, ...data, createdAt: at, updatedAt: at, deleted: false };
    }
    case 'AgentUpdated': {
      if (!state) return state;
      const data = event.data as { definition: AgentDefinition; systemPromptBlocks: AgentPromptBlock[] };
      return { ...state, ...data, updatedAt: at };
    }
    case 'AgentDeleted':
      return state && { ...state, deleted: true, updatedAt: at };
    default:
      return state;
  }
}

/** The agent as its owner sees it; collaborators' roles arrive with sharing. */
export function ownerView(agent: AgentState): AgentInfo {
  return {
    id: agent.id,
    accountId: agent.ownerAccountId,
    name: agent.definition.name,
    definition: agent.definition,
    systemPromptBlocks: agent.systemPromptBlocks,
    accessRole: 'owner',
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}
