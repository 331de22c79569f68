/**
 * A session's durable Log as transcript replay reads it: entries in seq order, each with its actor
 * already resolved (spec/tools-and-verbs.md, "Event shapes"), so replay never re-derives who acted.
 */
import type { SessionActor, SessionAttachmentInfo } from '../../protocol/sessions.js';

export type Actor = SessionActor;

export type LogPayload =
  | {
      type: 'message';
      role: 'user' | 'assistant' | 'tool';
      content: string;
      toolCallId?: string;
      rawMarkdown?: string;
      blocks?: unknown[];
      contextLines?: string[];
      attachments?: SessionAttachmentInfo[];
      meta?: unknown;
    }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; toolCallId: string; name: string; output?: unknown; error?: string; meta?: unknown }
  | { type: 'error'; message: string };

export interface LogEntry {
  id: string;
  seq: number;
  /** 'user' on a tool_call/tool_result means the user ran it through InvokeSessionTool. */
  actor: Actor;
  createdAt: number;
  event: LogPayload;
}
