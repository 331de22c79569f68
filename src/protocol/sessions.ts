/**
 * Sessions and their Log (spec/http-api.md, "CreateSession" … "StopSession"; shapes from the
 * upstream wire types): an agent's conversations, each a shared, actor-stamped Log of events.
 */
import type { AgentInfo, AgentPromptBlock } from './agents.js';
import type { ActionBase } from './envelope.js';

export type SessionStatus = 'idle' | 'streaming' | 'stopped' | 'error';
export type SessionActor = 'user' | 'agent' | 'system' | 'trigger';

export const DEFAULT_SESSION_PAGE = 50;
export const MAX_SESSION_PAGE = 200;
/** Characters (code points) a session title keeps after trimming. */
export const MAX_SESSION_TITLE_CHARS = 200;

export interface SessionInfo {
  id: string;
  /** The account that owns the session's agent. */
  account: string;
  agentId: string;
  title?: string;
  status: SessionStatus;
  createdAt: number;
  updatedAt: number;
  parentSessionId?: string;
  runId?: string;
  childSessionCount?: number;
}

export interface SessionListCursor {
  updatedBefore: number;
  idBefore: string;
}

export interface AgentRunUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Provenance stamped once at append time (spec: "Event shapes"). */
export interface SessionEventMeta {
  model?: string;
  provider?: string;
  usage?: AgentRunUsage;
  durationMs?: number;
  /** User messages: the account that sent it. */
  accountId?: string;
  /** User messages: the exact key that signed the request. */
  signerId?: string;
}

export interface SessionAttachmentInfo {
  id: string;
  sessionId: string;
  name: string;
  mimeType?: string;
  size: number;
  createdAt: number;
}

export type SessionEventPayload =
  | {
      type: 'message';
      role: 'user' | 'assistant' | 'tool';
      content: string;
      toolCallId?: string;
      rawMarkdown?: string;
      blocks?: AgentPromptBlock[];
      contextLines?: string[];
      attachments?: SessionAttachmentInfo[];
      actor?: SessionActor;
      meta?: SessionEventMeta;
    }
  | { type: 'tool_call'; id: string; name: string; input: unknown; actor?: SessionActor }
  | { type: 'tool_result'; toolCallId: string; name: string; output?: unknown; error?: string; actor?: SessionActor; meta?: SessionEventMeta }
  | { type: 'error'; message: string; actor?: SessionActor };

/** One durable Log event as GetSession and `append` frames carry it. */
export interface SessionEvent {
  id: string;
  sessionId: string;
  seq: number;
  event: SessionEventPayload;
  createdAt: number;
}

export type MessageSessionContentPart =
  | { type: 'text'; text: string; blocks?: AgentPromptBlock[] }
  | { type: 'context'; lines: string[] }
  | { type: 'attachment'; id: string };

export interface CreateSession extends ActionBase {
  _: 'CreateSession';
  agentId: string;
  title?: string;
  clientRequestId?: string;
}

export interface CreateSessionResponse {
  _: 'CreateSessionResponse';
  sessionId: string;
}

export interface ListSessions extends ActionBase {
  _: 'ListSessions';
  agentId?: string;
  limit?: number;
  cursor?: SessionListCursor;
  parentSessionId?: string;
  includeChildren?: boolean;
}

export interface ListSessionsResponse {
  _: 'ListSessionsResponse';
  sessions: SessionInfo[];
  agents: AgentInfo[];
  nextCursor?: SessionListCursor;
}

export interface UpdateSession extends ActionBase {
  _: 'UpdateSession';
  sessionId: string;
  title: string;
}

export interface UpdateSessionResponse {
  _: 'UpdateSessionResponse';
  session: SessionInfo;
}

export interface DeleteSession extends ActionBase {
  _: 'DeleteSession';
  sessionId: string;
}

export interface DeleteSessionResponse {
  _: 'DeleteSessionResponse';
  sessionId: string;
  agentId: string;
}

export interface GetSession extends ActionBase {
  _: 'GetSession';
  sessionId: string;
  afterSeq?: number;
}

export interface GetSessionResponse {
  _: 'GetSessionResponse';
  session: SessionInfo;
  events: SessionEvent[];
  systemPromptMarkdown: string;
}

export interface MessageSession extends ActionBase {
  _: 'MessageSession';
  sessionId: string;
  content: MessageSessionContentPart[];
  clientMessageId?: string;
}

export interface MessageSessionResponse {
  _: 'MessageSessionResponse';
  sessionId: string;
  /** Empty when the request returned before the turn's final assistant event existed. */
  assistantEventId: string;
}

export interface StopSession extends ActionBase {
  _: 'StopSession';
  sessionId: string;
}

export interface StopSessionResponse {
  _: 'StopSessionResponse';
  sessionId: string;
  stopped: boolean;
}
