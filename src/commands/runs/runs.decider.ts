/** Runs: queued for a session's new messages, canceled with their session. Pure: decide(run, command) → events. */
import type { NewEvent } from '../../events/event-log.js';
import { isTerminal, type RunState } from './run-state.js';

export type CancelReason = 'canceled' | 'session-stopped' | 'session-deleted' | 'agent-deleted';

export interface QueueAgentTurnCommand {
  ownerAccountId: string;
  agentId: string;
  sessionId: string;
  runId: string;
  origin: 'user' | 'trigger' | 'agent' | 'workflow' | 'system';
  messageEventIds: string[];
}

export function decideQueueAgentTurn(run: RunState | null, command: QueueAgentTurnCommand): NewEvent[] {
  // The run id comes from the request: this is that request run again.
  if (run) return [];
  return [
    {
      type: 'RunQueued',
      data: {
        kind: 'agent',
        ownerAccountId: command.ownerAccountId,
        agentId: command.agentId,
        sessionId: command.sessionId,
        rootRunId: command.runId,
        depth: 0,
        origin: command.origin,
        priority: command.origin === 'user' ? 'interactive' : 'background',
        messageEventIds: command.messageEventIds,
      },
    },
  ];
}

export function decideCancelRun(run: RunState | null, reason: CancelReason): NewEvent[] {
  if (!run || isTerminal(run)) return [];
  return [{ type: 'RunCanceled', data: { reason } }];
}
