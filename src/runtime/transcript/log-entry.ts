/**
 * A session's durable Log as transcript replay reads it: entries in seq order, each with its actor
 * already resolved (spec/tools-and-verbs.md, "Event shapes"), so replay never re-derives who acted.
 */
import type { SessionActor, SessionEventPayload } from '../../protocol/sessions.js';

export type Actor = SessionActor;

/** The wire payload without its actor: replay reads the resolved one from the entry. */
export type LogPayload = SessionEventPayload extends infer P ? (P extends unknown ? Omit<P, 'actor'> : never) : never;

export interface LogEntry {
  id: string;
  seq: number;
  /** 'user' on a tool_call/tool_result means the user ran it through InvokeSessionTool. */
  actor: Actor;
  createdAt: number;
  event: LogPayload;
}
