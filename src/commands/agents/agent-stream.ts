/** Reading and appending an agent's `agent-<id>` stream. */
import type { EventLog, NewEvent } from '../../events/event-log.js';
import type { Position } from '../../events/store/position.js';
import type { ApiError } from '../../protocol/api-error.js';
import { uuidFrom } from '../action-context.js';
import { appendDecision, keptChanging, loadStream } from '../stream-decisions.js';
import type { ActionContext } from '../action-registry.js';
import { evolveAgent, type AgentState } from './agent-state.js';

export const agentStream = (agentId: string): string => `agent-${agentId}`;

/**
 * The id of the agent a CreateAgent makes: from its client request id when it has one, so a create
 * run again for the same request makes the same agent rather than a second one.
 */
export function newAgentId(context: ActionContext, random: () => string): string {
  if (context.requestKey === undefined) return random();
  return uuidFrom(`${context.requestKey}:agent`);
}

export async function loadAgent(log: EventLog, agentId: string): Promise<{ agent: AgentState | null; revision: bigint | 'no_stream' }> {
  const { state, revision } = await loadStream<AgentState | null>(log, agentStream(agentId), null, (agent, event) =>
    evolveAgent(agent, event, agentId),
  );
  return { agent: state, revision };
}

/** Appends a decision to the agent's stream; null when another append came first. */
export function appendAgentDecision(
  log: EventLog,
  context: ActionContext,
  agentId: string,
  revision: bigint | 'no_stream',
  events: readonly NewEvent[],
  at: number,
): Promise<Position | null> {
  return appendDecision(log, context, agentStream(agentId), revision, events, at);
}

export function agentAfterAppend(agent: AgentState | null, agentId: string, events: readonly NewEvent[], at: number): AgentState | null {
  return events.reduce((state, event) => evolveAgent(state, { ...event, metadata: { at } }, agentId), agent);
}

export function agentKeptChanging(agentId: string, what: string): ApiError {
  return keptChanging(`The agent ${agentId}`, what);
}
