/** Reading and appending an agent's `agent-<id>` stream. */
import type { EventLog, NewEvent } from '../../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../events/store/errors.js';
import type { Position } from '../../events/store/position.js';
import { ApiError } from '../../protocol/api-error.js';
import { eventContextOf, eventIdFor, uuidFrom } from '../action-context.js';
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
  let agent: AgentState | null = null;
  let revision: bigint | 'no_stream' = 'no_stream';
  try {
    for await (const event of log.readStream(agentStream(agentId))) {
      agent = evolveAgent(agent, event, agentId);
      revision = event.revision;
    }
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return { agent, revision };
}

/**
 * Appends a decision at the revision it was made against, stamped `at`. Null when another append to
 * the stream came first: the caller decides again on what is there now.
 */
export async function appendAgentDecision(
  log: EventLog,
  context: ActionContext,
  agentId: string,
  revision: bigint | 'no_stream',
  events: readonly NewEvent[],
  at: number,
): Promise<Position | null> {
  try {
    const { position } = await log.append(
      agentStream(agentId),
      events.map((event, index) => ({ ...event, id: eventIdFor(context, index) })),
      { ...eventContextOf(context), at },
      { expected: revision },
    );
    return position;
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return null;
    throw error;
  }
}

export function agentAfterAppend(agent: AgentState | null, agentId: string, events: readonly NewEvent[], at: number): AgentState | null {
  return events.reduce((state, event) => evolveAgent(state, { ...event, metadata: { at } }, agentId), agent);
}

export function agentKeptChanging(agentId: string, what: string): ApiError {
  return new ApiError(409, `The agent ${agentId} kept changing while ${what}; retry`);
}
