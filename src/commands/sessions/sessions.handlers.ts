/**
 * The session actions (spec/http-api.md, "CreateSession" … "StopSession"). Commands decide on the
 * session's stream (sessions.decider.ts) through SessionWriter; reads answer from the session view
 * and, for the Log itself, from the session's stream.
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import { ApiError } from '../../protocol/api-error.js';
import type {
  CreateSession,
  CreateSessionResponse,
  DeleteSession,
  DeleteSessionResponse,
  GetSession,
  GetSessionResponse,
  MessageSession,
  MessageSessionResponse,
  StopSession,
  StopSessionResponse,
  UpdateSession,
  UpdateSessionResponse,
} from '../../protocol/sessions.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { eventIdFor } from '../action-context.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { describe } from '../accounts/credentials-input.js';
import { parseAgentId } from '../agents/agent-read.js';
import { parseMessageContent } from './message-content.js';
import { requireAbility, sessionNotFound } from './session-access.js';
import { parseSessionId, readSessionAccess, sessionEvent, sessionInfo } from './session-read.js';
import { isLogEvent } from './session-state.js';
import { newSessionId, sessionStream } from './session-stream.js';
import { SessionWriter, type SessionDecision } from './session-writer.js';
import { decideCreateSession, decideDeleteSession, decideMessage, decideRenameSession, parseTitle } from './sessions.decider.js';
import { systemPromptMarkdown } from './system-prompt.js';
import { StreamNotFoundError } from '../../events/store/errors.js';

@Injectable()
export class CreateSessionHandler implements ActionHandler<CreateSession, CreateSessionResponse> {
  readonly action = 'CreateSession' as const;
  readonly fields = ['agentId', 'title', 'clientRequestId'] as const;
  readonly idempotent = true;

  constructor(private readonly writer: SessionWriter) {}

  async handle(action: CreateSession, context: ActionContext): Promise<CreateSessionResponse> {
    const agentId = parseAgentId(action.agentId, 'CreateSession.agentId');
    const title = action.title === undefined ? undefined : parseTitle(action.title, 'CreateSession.title');
    const sessionId = newSessionId(context, randomUUID);
    const { position } = await this.writer.decide(
      context,
      sessionId,
      ({ session, agent, role }) =>
        decideCreateSession(session, role, { sessionId, agentId, ownerAccountId: agent?.ownerAccountId ?? '', ...(title !== undefined ? { title } : {}) }),
      { agentId },
    );
    if (position) await this.writer.settled(position, ['SessionCreated']);
    return { _: 'CreateSessionResponse', sessionId };
  }
}

@Injectable()
export class UpdateSessionHandler implements ActionHandler<UpdateSession, UpdateSessionResponse> {
  readonly action = 'UpdateSession' as const;
  readonly fields = ['sessionId', 'title'] as const;

  constructor(
    private readonly writer: SessionWriter,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: UpdateSession, context: ActionContext): Promise<UpdateSessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'UpdateSession.sessionId');
    const title = parseTitle(action.title, 'UpdateSession.title');
    const { position } = await this.writer.decide(context, sessionId, ({ session, role }) => decideRenameSession(session, role, title));
    if (position) await this.writer.settled(position, ['SessionRenamed']);
    const read = readSessionAccess(this.projections, sessionId, context.account);
    if (!read) throw sessionNotFound();
    return { _: 'UpdateSessionResponse', session: sessionInfo(read.row) };
  }
}

@Injectable()
export class DeleteSessionHandler implements ActionHandler<DeleteSession, DeleteSessionResponse> {
  readonly action = 'DeleteSession' as const;
  readonly fields = ['sessionId'] as const;

  constructor(private readonly writer: SessionWriter) {}

  async handle(action: DeleteSession, context: ActionContext): Promise<DeleteSessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'DeleteSession.sessionId');
    const agentId = await deleteSession(this.writer, context, sessionId);
    return { _: 'DeleteSessionResponse', sessionId, agentId };
  }
}

/**
 * Cancels the session's live runs, records the deletion, then removes its events from reads. The
 * runs go first so that no turn streams into a deleted session; a run queued in between finds the
 * session gone when it is claimed. With its agent (`cascade`), the agent's deletion is the authority.
 */
export async function deleteSession(
  writer: SessionWriter,
  context: ActionContext,
  sessionId: string,
  cascade = false,
): Promise<string> {
  const reason = cascade ? 'agent-deleted' : 'session-deleted';
  const decide = ({ session, role }: SessionDecision) => decideDeleteSession(session, cascade ? 'owner' : role, reason);
  let unfinished = false;
  // Checked before anything is canceled, so a refused delete changes nothing. A deletion recorded
  // whose removal was cut short (a crash between the two) is finished here, and still answers 404.
  await writer.decide(context, sessionId, (state) => {
    if (state.session?.deleted) unfinished = true;
    else decide(state);
    return [];
  });
  if (unfinished) {
    await writer.removeLog(sessionId);
    throw sessionNotFound();
  }
  await writer.cancelRuns(context, sessionId, reason);
  const { state, position } = await writer.decide(context, sessionId, decide);
  if (position) await writer.settled(position, ['SessionDeleted']);
  await writer.removeLog(sessionId);
  return state.session!.agentId;
}

@Injectable()
export class GetSessionHandler implements ActionHandler<GetSession, GetSessionResponse> {
  readonly action = 'GetSession' as const;
  readonly fields = ['sessionId', 'afterSeq'] as const;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: GetSession, context: ActionContext): Promise<GetSessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'GetSession.sessionId');
    const afterSeq = parseAfterSeq(action.afterSeq, 'GetSession.afterSeq');
    const read = readSessionAccess(this.projections, sessionId, context.account);
    if (!read) throw sessionNotFound();
    const events = [];
    try {
      for await (const event of this.log.readStream(sessionStream(sessionId))) {
        if (isLogEvent(event.type) && event.metadata.seq! > afterSeq) events.push(sessionEvent(event, sessionId));
      }
    } catch (error) {
      // Deleted between the read model's answer and this read.
      if (error instanceof StreamNotFoundError) throw sessionNotFound();
      throw error;
    }
    return { _: 'GetSessionResponse', session: sessionInfo(read.row), events, systemPromptMarkdown: systemPromptMarkdown(read.agent) };
  }
}

export function parseAfterSeq(value: unknown, field: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ApiError(400, `${field} must be a whole number of 0 or more (the last seq the client has), got ${describe(value)}`);
  }
  return value;
}

@Injectable()
export class MessageSessionHandler implements ActionHandler<MessageSession, MessageSessionResponse> {
  readonly action = 'MessageSession' as const;
  readonly fields = ['sessionId', 'content', 'clientMessageId'] as const;
  readonly idempotent = true;

  constructor(private readonly writer: SessionWriter) {}

  async handle(action: MessageSession, context: ActionContext): Promise<MessageSessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'MessageSession.sessionId');
    const message = parseMessageContent(action.content);
    const eventId = eventIdFor(context, sessionStream(sessionId), 0);
    const command = { eventId, message, account: context.account, signer: context.signer };
    const appended = await this.writer.decide(context, sessionId, ({ session, role }) => decideMessage(session, role, command));
    const queued = await this.writer.queueTurn(context, appended.state.session!, eventId);
    const last = queued.position ?? appended.position;
    if (last) await this.writer.settled(last, ['message', 'RunQueued']);
    // The turn itself runs in the runtime and streams over WebSocket.
    return { _: 'MessageSessionResponse', sessionId, assistantEventId: '' };
  }
}

@Injectable()
export class StopSessionHandler implements ActionHandler<StopSession, StopSessionResponse> {
  readonly action = 'StopSession' as const;
  readonly fields = ['sessionId'] as const;

  constructor(
    private readonly writer: SessionWriter,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: StopSession, context: ActionContext): Promise<StopSessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'StopSession.sessionId');
    const read = readSessionAccess(this.projections, sessionId, context.account);
    requireAbility(read?.role ?? null, 'chat', 'stop sessions');
    const canceled = await this.writer.cancelRuns(context, sessionId, 'session-stopped');
    return { _: 'StopSessionResponse', sessionId, stopped: canceled > 0 };
  }
}
