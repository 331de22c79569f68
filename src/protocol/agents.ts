/**
 * Agents (spec/http-api.md, "CreateAgent", "GetAgent", "UpdateAgent", "DeleteAgent", "ListAgents",
 * "Agent definition"): an account's configured assistants, each bound to one of its model providers.
 */
import type { ActionBase } from './envelope.js';
import type { SessionInfo } from './sessions.js';

/** spec/upstream/model-providers.md, "Reasoning levels". Absent means off, or the provider default. */
export const REASONING_LEVELS = ['minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

export const MAX_AGENT_TOOLS = 32;
export const MAX_TOOL_NAME_BYTES = 128;
/** The tools list as JSON. */
export const MAX_TOOLS_BYTES = 4 * 1024;

/** A Seed block node: the block's own fields beyond `id` and `type` are the Seed apps' business. */
export interface AgentPromptBlock {
  block: Record<string, unknown> & { id: string; type: string };
  children?: AgentPromptBlock[];
}

export interface AgentDefinition {
  name: string;
  /** Markdown, or Seed blocks; kept as given, and as blocks in AgentInfo.systemPromptBlocks. */
  systemPrompt: string | AgentPromptBlock[];
  /** The name of one of the owning account's model providers. */
  modelProvider: string;
  model: string;
  reasoningLevel?: ReasoningLevel;
  /** A grant list; omitted grants every service-runtime callable. */
  tools?: string[];
  /** Legacy single signing identity: the name of an `hm-account-key` secret of the owner. */
  signingKey?: string;
  signingKeys?: string[];
  metadata?: Record<string, unknown>;
}

export type AgentAccessRole = 'owner' | 'writer' | 'reader' | 'chatter';

/** As the Seed apps read it (upstream `AgentInfo`), plus `name`, `systemPromptBlocks` and `accessRole`. */
export interface AgentInfo {
  id: string;
  /** The owning account (upstream's field name). */
  account: string;
  name: string;
  definition: AgentDefinition;
  /** definition.systemPrompt normalized to Seed blocks (markdown parsed as the Seed apps parse it). */
  systemPromptBlocks: AgentPromptBlock[];
  accessRole: AgentAccessRole;
  status: 'idle' | 'running' | 'stopped' | 'error';
  createdAt: number;
  updatedAt: number;
  /** Present (true) only while public read is on. */
  publicRead?: boolean;
  /** Present (true) only while public chat is on. */
  publicChat?: boolean;
}

export interface CreateAgent extends ActionBase {
  _: 'CreateAgent';
  definition: AgentDefinition;
  clientRequestId?: string;
}

export interface CreateAgentResponse {
  _: 'CreateAgentResponse';
  agentId: string;
}

export interface GetAgent extends ActionBase {
  _: 'GetAgent';
  agentId: string;
}

/** Protocol 2+; protocol 1 clients get `sessions` in place of `sessionCount` (gateway/protocol-compat.ts). */
export interface GetAgentResponse {
  _: 'GetAgentResponse';
  agent: AgentInfo;
  sessionCount: number;
  /**
   * Only for a protocol 1 client, which reads the sessions themselves: the handler lists them, and
   * the downgrade puts them in place of the count.
   */
  sessions?: SessionInfo[];
}

export interface UpdateAgent extends ActionBase {
  _: 'UpdateAgent';
  agentId: string;
  definition: AgentDefinition;
}

export interface UpdateAgentResponse {
  _: 'UpdateAgentResponse';
  agent: AgentInfo;
}

export interface DeleteAgent extends ActionBase {
  _: 'DeleteAgent';
  agentId: string;
}

export interface DeleteAgentResponse {
  _: 'DeleteAgentResponse';
  agentId: string;
}

export interface ListAgents extends ActionBase {
  _: 'ListAgents';
}

export interface ListAgentsResponse {
  _: 'ListAgentsResponse';
  agents: AgentInfo[];
}

/** Sharing (spec/http-api.md, "Agent invitations and collaborators"). */
export type AgentInviteRole = 'reader' | 'writer';

export interface AgentInviteInfo {
  agentId: string;
  agentName: string;
  ownerAccountId: string;
  role: AgentInviteRole;
  createdAt: number;
  updatedAt: number;
}

export interface AgentCollaboratorInfo {
  accountId: string;
  role: 'owner' | AgentInviteRole;
  /** `pending` rows are shown to the owner only. */
  status: 'accepted' | 'pending';
  createdAt: number;
  updatedAt: number;
}

export interface ListAgentInvites extends ActionBase {
  _: 'ListAgentInvites';
}

export interface ListAgentInvitesResponse {
  _: 'ListAgentInvitesResponse';
  invites: AgentInviteInfo[];
}

export interface ListAgentCollaborators extends ActionBase {
  _: 'ListAgentCollaborators';
  agentId: string;
}

export interface ListAgentCollaboratorsResponse {
  _: 'ListAgentCollaboratorsResponse';
  agentId: string;
  publicRead: boolean;
  publicChat: boolean;
  collaborators: AgentCollaboratorInfo[];
}

export interface InviteAgentCollaborator extends ActionBase {
  _: 'InviteAgentCollaborator';
  agentId: string;
  accountId: string;
  role: AgentInviteRole;
}

export interface InviteAgentCollaboratorResponse {
  _: 'InviteAgentCollaboratorResponse';
  agentId: string;
  collaborator: AgentCollaboratorInfo;
}

export interface RemoveAgentCollaborator extends ActionBase {
  _: 'RemoveAgentCollaborator';
  agentId: string;
  accountId: string;
}

export interface RemoveAgentCollaboratorResponse {
  _: 'RemoveAgentCollaboratorResponse';
  agentId: string;
  accountId: string;
}

export interface AcceptAgentInvite extends ActionBase {
  _: 'AcceptAgentInvite';
  agentId: string;
}

export interface AcceptAgentInviteResponse {
  _: 'AcceptAgentInviteResponse';
  agent: AgentInfo;
}

export interface DeclineAgentInvite extends ActionBase {
  _: 'DeclineAgentInvite';
  agentId: string;
}

export interface DeclineAgentInviteResponse {
  _: 'DeclineAgentInviteResponse';
  agentId: string;
}

export interface SetAgentPublicRead extends ActionBase {
  _: 'SetAgentPublicRead';
  agentId: string;
  publicRead: boolean;
}

export interface SetAgentPublicChat extends ActionBase {
  _: 'SetAgentPublicChat';
  agentId: string;
  publicChat: boolean;
}

/** The answer to both SetAgentPublicRead and SetAgentPublicChat, under its own `_`. */
export interface AgentPublicFlagsResponse<T extends string> {
  _: T;
  agentId: string;
  publicRead: boolean;
  publicChat: boolean;
}
