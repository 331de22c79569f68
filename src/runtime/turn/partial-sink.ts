/**
 * Where a turn's live, never-stored progress goes: text as it streams, usage so far, what the agent
 * is doing. The shapes are upstream's `appendPartial` patch (AgentWSEvent); the application binds
 * this to the in-process partial bus.
 */
import type { AgentRunActivity, SessionPartialPatch } from '../../protocol/ws.js';

export type { AgentRunActivity };
export type PartialPatch = SessionPartialPatch;

export interface PartialSink {
  /** Fire and forget: a partial that reaches nobody costs the turn nothing. */
  publish(sessionId: string, partialId: string, patch: PartialPatch): void;
}

export const PARTIAL_SINK = Symbol('PartialSink');
