/** Events of `agent-<agentId>` streams: an agent's definition, from creation to deletion, and whom it is shared with. */
import type { EventDefinition } from './event-definition.js';

const agent = (type: string, description: string): EventDefinition => ({
  type,
  category: 'agent',
  version: 1,
  description,
  schema: `${type}.v1.json`,
});

export const AGENT_EVENTS: readonly EventDefinition[] = [
  agent('AgentCreated', 'An account created an agent: its definition, bound to one of the account’s model providers.'),
  agent('AgentUpdated', 'The agent’s definition was replaced.'),
  agent('AgentDeleted', 'The agent was deleted.'),
  agent('AgentCollaboratorInvited', 'The owner invited an account as a reader or writer, or changed an invitee’s or member’s role.'),
  agent('AgentInviteAccepted', 'The invited account accepted its pending invitation.'),
  agent('AgentInviteDeclined', 'The invited account declined its pending invitation.'),
  agent('AgentCollaboratorRemoved', 'The owner revoked a member or cancelled a pending invitation.'),
  agent('AgentPublicReadSet', 'The owner turned public read on or off (off clears public chat too).'),
  agent('AgentPublicChatSet', 'The owner turned public chat on or off.'),
];
