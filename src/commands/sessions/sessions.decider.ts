/**
 * Sessions (spec/http-api.md, "CreateSession", "UpdateSession", "DeleteSession", "MessageSession").
 * Pure: decide(session, role, command) → events. `role` is the acting account's role on the session's
 * agent, or null when it has none.
 *
 * The Log's `seq` and `prev` are decided here, against the revision the session was read at, so
 * every reader of the stream sees the same numbers and the same chain.
 */
import type { NewEvent } from '../../events/event-log.js';
import type { JsonValue } from '../../events/store/types.js';
import { ApiError } from '../../protocol/api-error.js';
import type { AgentAccessRole } from '../../protocol/agents.js';
import { MAX_SESSION_TITLE_CHARS } from '../../protocol/sessions.js';
import { describe } from '../accounts/credentials-input.js';
import { agentNotFound } from '../agents/agents.decider.js';
import type { UserMessage } from './message-content.js';
import { requireAbility, sessionNotFound } from './session-access.js';
import type { SessionState } from './session-state.js';

/** Trimmed, one line, at most MAX_SESSION_TITLE_CHARS characters; never cut inside a character. */
export function parseTitle(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new ApiError(400, `${field} must be a string, got ${describe(value)}`);
  const title = [...value.replace(/\s+/g, ' ').trim()].slice(0, MAX_SESSION_TITLE_CHARS).join('');
  if (title === '') throw new ApiError(400, `${field} must have some text besides white space`);
  return title;
}

export interface CreateSessionCommand {
  sessionId: string;
  agentId: string;
  ownerAccountId: string;
  title?: string;
}

export function decideCreateSession(session: SessionState | null, role: AgentAccessRole | null, command: CreateSessionCommand): NewEvent[] {
  requireAbility(role, 'chat', 'create sessions', agentNotFound);
  // The id comes from the request's clientRequestId: this is that create run again.
  if (session) return [];
  const data = { agentId: command.agentId, ownerAccountId: command.ownerAccountId, ...(command.title !== undefined ? { title: command.title } : {}) };
  return [{ type: 'SessionCreated', data }];
}

/** The session, when it exists and `role` may `ability` it. */
function liveSession(session: SessionState | null, role: AgentAccessRole | null, ability: 'read' | 'chat' | 'write', what: string): SessionState {
  if (!session || session.deleted) throw sessionNotFound();
  requireAbility(role, ability, what);
  return session;
}

export function decideRenameSession(session: SessionState | null, role: AgentAccessRole | null, title: string): NewEvent[] {
  const live = liveSession(session, role, 'write', 'rename sessions');
  if (live.title === title && live.titleSource === 'user') return [];
  return [{ type: 'SessionRenamed', data: { title, titleSource: 'user' } }];
}

export function decideDeleteSession(session: SessionState | null, role: AgentAccessRole | null, reason: 'session-deleted' | 'agent-deleted'): NewEvent[] {
  const live = liveSession(session, role, 'write', 'delete sessions');
  return [{ type: 'SessionDeleted', data: { agentId: live.agentId, reason } }];
}

export interface MessageCommand {
  /** The id the message event gets: derived from the request, so a replayed request is recognized. */
  eventId: string;
  message: UserMessage;
  account: string;
  signer: string;
}

/** The user message as the Log's next event, or nothing when this request's message is already there. */
export function decideMessage(session: SessionState | null, role: AgentAccessRole | null, command: MessageCommand): NewEvent[] {
  const live = liveSession(session, role, 'chat', 'message sessions');
  if (live.eventIds.has(command.eventId)) return [];
  if (command.message.attachmentIds.length) {
    // Attachments are uploaded with UploadSessionAttachment, which this server does not offer yet.
    throw new ApiError(400, `Attachment ${command.message.attachmentIds[0]} was not found in session ${live.id}; upload it with UploadSessionAttachment first`);
  }
  const { attachmentIds: _ignored, ...message } = command.message;
  const data = { role: 'user', ...message, meta: { accountId: command.account, signerId: command.signer } };
  return [{ type: 'message', id: command.eventId, data: data as unknown as JsonValue, metadata: nextLogPosition(live) }];
}

/** `seq` and `prev` of the Log event that follows the session's last one. */
export function nextLogPosition(session: SessionState): { seq: number; prev?: string } {
  return { seq: session.lastSeq + 1, ...(session.lastLogCid !== undefined ? { prev: session.lastLogCid } : {}) };
}
