/**
 * Runs: queued for a session's new messages, claimed by exactly one process under a lease, started,
 * finished, retried with backoff, canceled. Pure: decide(run, command) → events; time and randomness
 * come in with the command.
 */
import type { NewEvent } from '../../events/event-log.js';
import type { JsonValue } from '../../events/store/types.js';
import type { RunOutcome } from '../../runtime/run-executor.js';
import { isTerminal, type RunOrigin, type RunState } from './run-state.js';

export type CancelReason = 'canceled' | 'session-stopped' | 'session-deleted' | 'agent-deleted';

/** Attempts a run gets before a retryable failure or a lapsed lease fails it for good. */
export const MAX_RUN_ATTEMPTS = 4;
export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 60_000;

export interface QueueAgentTurnCommand {
  ownerAccountId: string;
  agentId: string;
  sessionId: string;
  runId: string;
  origin: RunOrigin;
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

export interface ClaimCommand {
  owner: string;
  now: number;
  leaseMs: number;
}

/**
 * A claim of a queued run that is due, of a claimed or running run whose lease lapsed (its process is
 * gone: the attempt counts), or of this process's own run found at boot (it does not). Nothing when
 * the run is not claimable now; a lapsed run out of attempts fails instead.
 */
export function decideClaim(run: RunState | null, command: ClaimCommand): NewEvent[] {
  if (!run || isTerminal(run) || run.status === 'waiting') return [];
  const claim = (attempt: number): NewEvent[] => [
    { type: 'RunClaimed', data: { owner: command.owner, leaseUntil: command.now + command.leaseMs, attempt } },
  ];
  if (run.status === 'queued') return (run.notBefore ?? 0) <= command.now ? claim(run.attempt + 1) : [];
  if (run.leaseOwner === command.owner) return claim(run.attempt);
  if ((run.leaseUntil ?? 0) >= command.now) return [];
  if (run.attempt >= MAX_RUN_ATTEMPTS) {
    const message = `The run was interrupted ${run.attempt} times (its server process stopped while running it); it is not tried again`;
    return [{ type: 'RunFailed', data: { error: { code: 'lease_lost', message }, attempt: run.attempt } }];
  }
  return claim(run.attempt + 1);
}

/** The lease holder's own run, while it still holds it. */
export function holds(run: RunState | null, owner: string): run is RunState {
  return run !== null && (run.status === 'claimed' || run.status === 'running') && run.leaseOwner === owner;
}

export function decideStart(run: RunState | null, owner: string): NewEvent[] {
  if (!holds(run, owner) || run.status === 'running') return [];
  return [{ type: 'RunStarted', data: { owner } }];
}

export function decideRenewLease(run: RunState | null, command: ClaimCommand): NewEvent[] {
  if (!holds(run, command.owner)) return [];
  return [{ type: 'RunLeaseRenewed', data: { owner: command.owner, leaseUntil: command.now + command.leaseMs } }];
}

export interface OutcomeCommand {
  owner: string;
  outcome: RunOutcome;
  now: number;
  /** In [0, 1): spreads retries of runs that failed together. */
  jitter: number;
}

/** Exponential, capped, with full jitter over its upper half. */
export function retryDelay(attempt: number, jitter: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * jitter);
}

/**
 * The outcome of the holder's attempt. A cancel that landed while the run executed wins over its
 * result, and so does another process's claim after this one lost its lease: both leave nothing to record.
 */
export function decideOutcome(run: RunState | null, command: OutcomeCommand): NewEvent[] {
  if (!holds(run, command.owner)) return [];
  const { outcome } = command;
  // Interfaces are not JSON types to the compiler; these are plain data.
  const usage = (outcome.usage ? { usage: outcome.usage } : {}) as Record<string, JsonValue>;
  const error = outcome.status === 'failed' ? ({ code: outcome.error.code, message: outcome.error.message } as JsonValue) : null;
  if (outcome.status === 'succeeded') {
    return [
      {
        type: 'RunSucceeded',
        data: { ...(outcome.assistantEventId ? { assistantEventId: outcome.assistantEventId } : {}), ...(outcome.output !== undefined ? { output: outcome.output } : {}), ...usage },
      },
    ];
  }
  if (outcome.retryable && run.attempt < MAX_RUN_ATTEMPTS) {
    const retryAt = command.now + retryDelay(run.attempt, command.jitter);
    return [{ type: 'RunAttemptFailed', data: { error, attempt: run.attempt, retryAt, ...usage } }];
  }
  return [{ type: 'RunFailed', data: { error, attempt: run.attempt, ...usage } }];
}

export function decideCancelRun(run: RunState | null, reason: CancelReason): NewEvent[] {
  if (!run || isTerminal(run)) return [];
  return [{ type: 'RunCanceled', data: { reason } }];
}
