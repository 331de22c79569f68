/**
 * Who may do what in a session (spec/http-api.md, "SetAgentPublicChat"): the access comes from the
 * role on the session's agent. Readers read; chatters also create sessions, message, stop and retry;
 * writers and the owner also rename and delete. An account with no role is told the session is not
 * found, so a stranger never learns whether it exists.
 */
import { ApiError } from '../../protocol/api-error.js';
import type { AgentAccessRole } from '../../protocol/agents.js';

export type SessionAbility = 'read' | 'chat' | 'write';

const ABILITIES: Readonly<Record<AgentAccessRole, readonly SessionAbility[]>> = {
  owner: ['read', 'chat', 'write'],
  writer: ['read', 'chat', 'write'],
  chatter: ['read', 'chat'],
  reader: ['read'],
};

const WHO: Readonly<Record<SessionAbility, string>> = {
  read: 'the owner, writers, readers and chatters',
  chat: 'the owner, writers and chatters (public chat)',
  write: 'the owner and writers',
};

export const sessionNotFound = (): ApiError => new ApiError(404, 'Session not found');

export function may(role: AgentAccessRole | null, ability: SessionAbility): boolean {
  return role !== null && ABILITIES[role].includes(ability);
}

/** Throws unless `role` grants `ability`: 404 with no role at all, 403 with a role that falls short. */
export function requireAbility(role: AgentAccessRole | null, ability: SessionAbility, what: string, notFound = sessionNotFound): void {
  if (role === null) throw notFound();
  if (!may(role, ability)) throw new ApiError(403, `Only ${WHO[ability]} may ${what}; this account is a ${role} of the agent`);
}
