/** One agent as its `agent-<id>` stream has it: the state the agent deciders decide against. */
import type { AgentAccessRole, AgentDefinition, AgentInfo, AgentPromptBlock } from '../../protocol/agents.js';

export interface AgentState {
  id: string;
  ownerAccountId: string;
  definition: AgentDefinition;
  systemPromptBlocks: AgentPromptBlock[];
  createdAt: number;
  updatedAt: number;
  deleted: boolean;
  /** Invited accounts by account id: pending until they accept, then members. */
  members: Readonly<Record<string, AgentMember>>;
  publicRead: boolean;
  publicChat: boolean;
}

export type InviteRole = 'reader' | 'writer';

export interface AgentMember {
  role: InviteRole;
  accepted: boolean;
  invitedAt: number;
  updatedAt: number;
}

/** The account's role on the agent, or null when it may not see it (a pending invitee included). */
export function roleOf(agent: AgentState | null, account: string): AgentAccessRole | null {
  if (!agent || agent.deleted) return null;
  if (agent.ownerAccountId === account) return 'owner';
  const member = agent.members[account];
  if (member?.accepted) return member.role;
  if (agent.publicRead) return agent.publicChat ? 'chatter' : 'reader';
  return null;
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
      return { id: agentId, ...data, createdAt: at, updatedAt: at, deleted: false, members: {}, publicRead: false, publicChat: false };
    }
    case 'AgentUpdated': {
      if (!state) return state;
      const data = event.data as { definition: AgentDefinition; systemPromptBlocks: AgentPromptBlock[] };
      return { ...state, ...data, updatedAt: at };
    }
    case 'AgentDeleted':
      return state && { ...state, deleted: true, updatedAt: at };
    case 'AgentCollaboratorInvited': {
      if (!state) return state;
      const { accountId, role } = event.data as { accountId: string; role: InviteRole };
      const before = state.members[accountId];
      const member: AgentMember = before ? { ...before, role, updatedAt: at } : { role, accepted: false, invitedAt: at, updatedAt: at };
      return { ...state, members: { ...state.members, [accountId]: member } };
    }
    case 'AgentInviteAccepted': {
      const { accountId } = event.data as { accountId: string };
      const before = state?.members[accountId];
      if (!state || !before) return state;
      return { ...state, members: { ...state.members, [accountId]: { ...before, accepted: true, updatedAt: at } } };
    }
    case 'AgentInviteDeclined':
    case 'AgentCollaboratorRemoved': {
      if (!state) return state;
      const { accountId } = event.data as { accountId: string };
      const members = { ...state.members };
      delete members[accountId];
      return { ...state, members };
    }
    case 'AgentPublicReadSet': {
      if (!state) return state;
      const { publicRead } = event.data as { publicRead: boolean };
      // Turning public read off also clears public chat (spec: SetAgentPublicRead).
      return { ...state, publicRead, publicChat: publicRead && state.publicChat };
    }
    case 'AgentPublicChatSet':
      return state && { ...state, publicChat: (event.data as { publicChat: boolean }).publicChat };
    default:
      return state;
  }
}

/** The agent as an account with `role` on it sees it. */
/** The fields of an agent the wire shows, whether read from its stream or from the read model. */
export type AgentViewSource = Pick<
  AgentState,
  'id' | 'ownerAccountId' | 'definition' | 'systemPromptBlocks' | 'createdAt' | 'updatedAt' | 'publicRead' | 'publicChat'
>;

export function agentView(agent: AgentViewSource, role: AgentAccessRole = 'owner'): AgentInfo {
  return {
    id: agent.id,
    account: agent.ownerAccountId,
    name: agent.definition.name,
    definition: agent.definition,
    systemPromptBlocks: agent.systemPromptBlocks,
    accessRole: role,
    // Agents do not run yet (no sessions or runs exist); 'idle' is the truth until they do.
    status: 'idle',
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    // Reported only when on, so an unshared agent answers as it did before sharing.
    ...(agent.publicRead ? { publicRead: true } : {}),
    ...(agent.publicChat ? { publicChat: true } : {}),
  };
}
