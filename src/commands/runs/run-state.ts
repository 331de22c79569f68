/** One run as its `run-<id>` stream has it: the state the run deciders decide against. */
import type { AgentRunUsage } from '../../protocol/sessions.js';

export type RunStatus = 'queued' | 'claimed' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';
export type RunOrigin = 'user' | 'trigger' | 'agent' | 'workflow' | 'system';
export type RunPriority = 'interactive' | 'background';

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled'];

export interface RunError {
  code: string;
  message: string;
}

export interface RunState {
  id: string;
  ownerAccountId: string;
  agentId: string;
  sessionId: string;
  rootRunId: string;
  parentRunId?: string;
  depth: number;
  origin: RunOrigin;
  priority: RunPriority;
  messageEventIds: string[];
  status: RunStatus;
  /** Claims so far that counted (a boot sweep re-claiming its own run does not). */
  attempt: number;
  /** The process holding the lease, while claimed or running. */
  leaseOwner?: string;
  leaseUntil?: number;
  /** Not claimed before this time (a retry's backoff). */
  notBefore?: number;
  error?: RunError;
  cancelReason?: string;
  usage?: AgentRunUsage;
  assistantEventId?: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  updatedAt: number;
}

export const isTerminal = (run: Pick<RunState, 'status'>): boolean => TERMINAL_RUN_STATUSES.includes(run.status);

type RunEvent = { type: string; data: unknown; metadata: { at: number } };

export function evolveRun(state: RunState | null, event: RunEvent, runId: string): RunState | null {
  const at = event.metadata.at;
  if (event.type === 'RunQueued') {
    const data = event.data as Pick<
      RunState,
      'ownerAccountId' | 'agentId' | 'sessionId' | 'rootRunId' | 'parentRunId' | 'depth' | 'origin' | 'priority' | 'messageEventIds'
    >;
    return { id: runId, ...data, status: 'queued', attempt: 0, createdAt: at, updatedAt: at };
  }
  if (!state) return state;
  const next = { ...state, updatedAt: at };
  switch (event.type) {
    case 'RunClaimed': {
      const { owner, leaseUntil, attempt } = event.data as { owner: string; leaseUntil: number; attempt: number };
      return { ...next, status: 'claimed', leaseOwner: owner, leaseUntil, attempt };
    }
    case 'RunLeaseRenewed': {
      const { leaseUntil } = event.data as { leaseUntil: number };
      return { ...next, leaseUntil };
    }
    case 'RunStarted':
      return { ...next, status: 'running', startedAt: state.startedAt ?? at };
    case 'RunParked': {
      const { wakeAt } = event.data as { wakeAt?: number };
      const { leaseOwner: _o, leaseUntil: _u, ...rest } = next;
      return { ...rest, status: 'waiting', ...(wakeAt !== undefined ? { notBefore: wakeAt } : {}) };
    }
    case 'RunWoken': {
      const { leaseOwner: _o, leaseUntil: _u, notBefore: _n, ...rest } = next;
      return { ...rest, status: 'queued' };
    }
    case 'RunAttemptFailed': {
      const { error, retryAt, usage } = event.data as { error: RunError; retryAt: number; usage?: AgentRunUsage };
      const { leaseOwner: _o, leaseUntil: _u, ...rest } = next;
      return { ...rest, status: 'queued', error, notBefore: retryAt, ...(usage ? { usage: addUsage(state.usage, usage) } : {}) };
    }
    case 'RunSucceeded': {
      const { usage, assistantEventId } = event.data as { usage?: AgentRunUsage; assistantEventId?: string };
      const { error: _e, ...rest } = next;
      return { ...rest, status: 'succeeded', finishedAt: at, ...(usage ? { usage: addUsage(state.usage, usage) } : {}), ...(assistantEventId ? { assistantEventId } : {}) };
    }
    case 'RunFailed': {
      const { error, usage } = event.data as { error: RunError; usage?: AgentRunUsage };
      return { ...next, status: 'failed', error, finishedAt: at, ...(usage ? { usage: addUsage(state.usage, usage) } : {}) };
    }
    case 'RunCanceled':
      return { ...next, status: 'canceled', cancelReason: (event.data as { reason: string }).reason, finishedAt: at };
    default:
      return state;
  }
}

export function addUsage(a: AgentRunUsage | undefined, b: AgentRunUsage): AgentRunUsage {
  if (!a) return b;
  return { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, total: a.total + b.total };
}
