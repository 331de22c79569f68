/**
 * What the dispatcher hands a claimed run to, and what it gets back. The dispatcher owns the run's
 * stream (claim, lease, outcome); an executor owns the work — for an agent run, the model turn loop.
 */
import type { JsonValue } from '../events/store/types.js';
import type { AgentRunUsage } from '../protocol/sessions.js';

export interface ClaimedRun {
  runId: string;
  rootRunId: string;
  /** 1 for the first claim; a re-claim after a lost lease counts up, a boot sweep of our own does not. */
  attempt: number;
  ownerAccountId: string;
  agentId: string;
  sessionId: string;
  /** The Log messages this turn answers. */
  messageEventIds: readonly string[];
  origin: 'user' | 'trigger' | 'agent' | 'workflow' | 'system';
  priority: 'interactive' | 'background';
}

export interface RunFailure {
  /** Stable, machine-readable: `provider_unreachable`, `provider_error`, `model_refused`, `session_gone`, … */
  code: string;
  message: string;
}

export type RunOutcome =
  | { status: 'succeeded'; output?: JsonValue; usage?: AgentRunUsage; assistantEventId?: string }
  | { status: 'failed'; error: RunFailure; retryable: boolean; usage?: AgentRunUsage };

export interface RunExecutor {
  /**
   * Does the run's work. `signal` aborts when the run is canceled or its lease is lost; the executor
   * then stops as soon as it can and its outcome is ignored. May be called again for the same run
   * after a crash: it resumes from what the session's Log already holds.
   */
  execute(run: ClaimedRun, signal: AbortSignal): Promise<RunOutcome>;
}

/** The Nest token the dispatcher's executor is provided under. */
export const RUN_EXECUTOR = Symbol('RunExecutor');
