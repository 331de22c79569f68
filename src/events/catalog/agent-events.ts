/** Events of `agent-<agentId>` streams: an agent's definition, from creation to deletion. */
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
];
