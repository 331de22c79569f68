/**
 * Sharing an agent (spec/http-api.md, "Agent invitations and collaborators"): the owner invites
 * readers and writers, removes them, and turns public read and public chat on and off; an invitee
 * accepts or declines its own pending invitation. Pure: decide(state, command) → events. An account
 * that cannot see the agent is told it is not found, never forbidden; one that can see it but lacks
 * the right is forbidden (403).
 */
import type { NewEvent } from '../../events/event-log.js';
import { ApiError } from '../../protocol/api-error.js';
import { describe } from '../accounts/credentials-input.js';
import { roleOf, type AgentState, type InviteRole } from './agent-state.js';
import { agentNotFound } from './agents.decider.js';

const PRINCIPAL = /^z[1-9A-HJ-NP-Za-km-z]{20,200}$/;

export function parseAccountId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !PRINCIPAL.test(value)) {
    throw new ApiError(400, `${field} must be an account id (a base58btc principal starting with "z"), got ${describe(value)}`);
  }
  return value;
}

export function parseInviteRole(value: unknown, field: string): InviteRole {
  if (value !== 'reader' && value !== 'writer') {
    throw new ApiError(400, `${field} must be "reader" or "writer" (chatter comes only with public chat), got ${describe(value)}`);
  }
  return value;
}

export function parseFlag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ApiError(400, `${field} must be true or false, got ${describe(value)}`);
  return value;
}

/** The agent, when `account` owns it: 404 when it cannot see it, 403 when it sees it but does not own it. */
export function ownerOnly(agent: AgentState | null, account: string, what: string): AgentState {
  const role = roleOf(agent, account);
  if (!agent || role === null) throw agentNotFound();
  if (role !== 'owner') throw new ApiError(403, `Only the agent's owner may ${what}; this account is a ${role}`);
  return agent;
}

export interface InviteCommand {
  account: string;
  invitee: string;
  role: InviteRole;
}

export function decideInvite(agent: AgentState | null, command: InviteCommand): NewEvent[] {
  const owned = ownerOnly(agent, command.account, 'invite collaborators');
  if (command.invitee === owned.ownerAccountId) throw new ApiError(400, 'The owner cannot be invited to their own agent');
  if (owned.members[command.invitee]?.role === command.role) return [];
  return [{ type: 'AgentCollaboratorInvited', data: { accountId: command.invitee, role: command.role } }];
}

export function decideRemove(agent: AgentState | null, command: { account: string; member: string }): NewEvent[] {
  const owned = ownerOnly(agent, command.account, 'remove collaborators');
  if (!owned.members[command.member]) {
    throw new ApiError(404, `Account ${command.member} is neither a collaborator of this agent nor invited to it`);
  }
  return [{ type: 'AgentCollaboratorRemoved', data: { accountId: command.member } }];
}

/** Only the invitee's own invitation: anyone without one is told the agent is not found. */
export function decideAccept(agent: AgentState | null, command: { account: string }): NewEvent[] {
  const member = agent && !agent.deleted ? agent.members[command.account] : undefined;
  if (!member) throw agentNotFound();
  if (member.accepted) return [];
  return [{ type: 'AgentInviteAccepted', data: { accountId: command.account } }];
}

export function decideDecline(agent: AgentState | null, command: { account: string }): NewEvent[] {
  const member = agent && !agent.deleted ? agent.members[command.account] : undefined;
  if (!member || member.accepted) {
    if (roleOf(agent, command.account) === null) throw agentNotFound();
    throw new ApiError(404, 'This account has no pending invitation to the agent');
  }
  return [{ type: 'AgentInviteDeclined', data: { accountId: command.account } }];
}

export function decideSetPublicRead(agent: AgentState | null, command: { account: string; publicRead: boolean }): NewEvent[] {
  const owned = ownerOnly(agent, command.account, 'change public read');
  if (owned.publicRead === command.publicRead) return [];
  return [{ type: 'AgentPublicReadSet', data: { publicRead: command.publicRead } }];
}

export function decideSetPublicChat(agent: AgentState | null, command: { account: string; publicChat: boolean }): NewEvent[] {
  const owned = ownerOnly(agent, command.account, 'change public chat');
  if (command.publicChat && !owned.publicRead) {
    throw new ApiError(400, 'Public chat needs public read: turn it on first with SetAgentPublicRead');
  }
  if (owned.publicChat === command.publicChat) return [];
  return [{ type: 'AgentPublicChatSet', data: { publicChat: command.publicChat } }];
}
