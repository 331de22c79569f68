/** One run as its `run-<id>` stream has it. */
export type RunStatus = 'queued' | 'claimed' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled'];

export interface RunState {
  id: string;
  ownerAccountId: string;
  agentId: string;
  sessionId: string;
  rootRunId: string;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
}

export function evolveRun(state: RunState | null, event: { type: string; data: unknown; metadata: { at: number } }, runId: string): RunState | null {
  const at = event.metadata.at;
  switch (event.type) {
    case 'RunQueued': {
      const data = event.data as { ownerAccountId: string; agentId: string; sessionId: string; rootRunId: string };
      return { id: runId, ownerAccountId: data.ownerAccountId, agentId: data.agentId, sessionId: data.sessionId, rootRunId: data.rootRunId, status: 'queued', createdAt: at, updatedAt: at };
    }
    case 'RunCanceled':
      return state && { ...state, status: 'canceled', updatedAt: at };
    default:
      return state;
  }
}

export const isTerminal = (run: RunState): boolean => TERMINAL_RUN_STATUSES.includes(run.status);
