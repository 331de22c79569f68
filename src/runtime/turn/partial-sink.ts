/**
 * Where a turn's live, never-stored progress goes: text as it streams, usage so far, what the agent
 * is doing. The shapes are upstream's `appendPartial` patch (AgentWSEvent); the application binds
 * this to the in-process partial bus.
 */
import type { AgentRunUsage } from '../../protocol/sessions.js';

export interface AgentRunActivity {
  /**
   * starting: the run was accepted and the request is being prepared; thinking: waiting on the model
   * before any output; responding: assistant text is streaming; tool: a tool call is executing;
   * finalizing: the run is wrapping up.
   */
  phase: 'starting' | 'thinking' | 'responding' | 'tool' | 'finalizing';
  toolName?: string;
  toolCallId?: string;
  detail?: string;
}

export interface PartialPatch {
  textDelta?: string;
  done?: boolean;
  /** Cumulative for the run so far. */
  usage?: AgentRunUsage;
  activity?: AgentRunActivity;
}

export interface PartialSink {
  /** Fire and forget: a partial that reaches nobody costs the turn nothing. */
  publish(sessionId: string, partialId: string, patch: PartialPatch): void;
}

export const PARTIAL_SINK = Symbol('PartialSink');
