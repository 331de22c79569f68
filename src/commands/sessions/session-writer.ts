/**
 * The load-decide-append loops of the session commands, shared by their handlers and by DeleteAgent's
 * cascade. Appends to one session are queued in this process, so concurrent messages to a session
 * take their turns instead of racing for the same revision; another process's append still makes
 * the decision run again on what is there now.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog, NewEvent } from '../../events/event-log.js';
import { StreamNotFoundError } from '../../events/store/errors.js';
import type { Position } from '../../events/store/position.js';
import type { AgentAccessRole } from '../../protocol/agents.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { uuidFrom } from '../action-context.js';
import type { ActionContext } from '../action-registry.js';
import { roleOf, type AgentState } from '../agents/agent-state.js';
import { loadAgent } from '../agents/agent-stream.js';
import { KeyedQueue } from '../keyed-queue.js';
import { decideCancelRun, decideQueueAgentTurn, type CancelReason } from '../runs/runs.decider.js';
import { actionStamp, decideOnRun } from '../runs/run-stream.js';
import type { RunRow } from '../../projections/runs.projection.js';
import { appendDecision, awaitProjections, keptChanging } from '../stream-decisions.js';
import { loadSession, sessionStream, type LoadedSession } from './session-stream.js';
import { nextLogPosition } from './sessions.decider.js';
import type { LogEventType } from '../../events/catalog/log-events.js';
import type { Actor } from '../../events/catalog/metadata.js';
import type { JsonValue } from '../../events/store/types.js';
import { WrongExpectedVersionError } from '../../events/store/errors.js';
import type { SessionEvent } from '../../protocol/sessions.js';
import type { SessionState } from './session-state.js';

/** Another process appending to the same session is rare; ten rounds with jitter outlast any burst of it. */
const SESSION_ATTEMPTS = 10;
/** Sessions whose folded state is kept between actions, most recently used last. */
const CACHED_SESSIONS = 1_000;

/** A Log event the runtime appends: an assistant message, a tool call or result, an error or notice. */
export interface RuntimeLogDraft {
  type: LogEventType;
  data: JsonValue;
  actor: Actor;
  /** Give one to make a retried append idempotent; a fresh UUID otherwise. */
  id?: string;
}

/** Who the runtime appends for: the run, its tree, and the account the session belongs to. */
export interface RuntimeOrigin {
  runId: string;
  rootRunId: string;
}

/** The session was deleted (or never existed): a run writing to it must stop. */
export class SessionGoneError extends Error {
  override name = 'SessionGoneError';
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} no longer exists`);
  }
}

export interface SessionDecision {
  session: SessionState | null;
  agent: AgentState | null;
  role: AgentAccessRole | null;
}

@Injectable()
export class SessionWriter {
  private readonly queue = new KeyedQueue();
  private readonly logger = new Logger('Sessions');
  private readonly cache = new Map<string, LoadedSession>();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  /**
   * Decides on the session's stream with the acting account's role on its agent, and appends. The
   * decision's events get ids derived from the request; a message event brings its own.
   */
  decide(
    context: ActionContext,
    sessionId: string,
    decide: (state: SessionDecision) => NewEvent[],
    options: { agentId?: string; account?: string } = {},
  ): Promise<{ state: SessionDecision; events: NewEvent[]; position: Position | null }> {
    return this.queue.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SESSION_ATTEMPTS; attempt++) {
        const { session, revision } = await this.load(sessionId);
        const agentId = session?.agentId ?? options.agentId;
        const agent = agentId === undefined ? null : (await loadAgent(this.log, agentId)).agent;
        const state = { session, agent, role: roleOf(agent, options.account ?? context.account) };
        const events = decide(state);
        if (!events.length) return { state, events, position: null };
        const position = await appendDecision(this.log, context, sessionStream(sessionId), revision, events, Date.now());
        if (position !== null) return { state, events, position };
        await sleep(randomInt(1, 5 * attempt));
      }
      throw keptChanging(`Session ${sessionId}`, 'this action was decided');
    });
  }

  /**
   * Appends the runtime's Log events to a session, each at the next `seq` with the chain's `prev`,
   * stamped with their actor and caused by the run. Returns them as the wire shows them.
   */
  appendRuntime(sessionId: string, drafts: readonly RuntimeLogDraft[], origin: RuntimeOrigin): Promise<SessionEvent[]> {
    return this.queue.run(sessionId, async () => {
      const appended: SessionEvent[] = [];
      // One append per event: each one's `prev` is the CID of the one before as stored.
      for (const draft of drafts) {
        const id = draft.id ?? randomUUID();
        for (let attempt = 1; ; attempt++) {
          const { session, revision } = await this.load(sessionId);
          if (!session || session.deleted) throw new SessionGoneError(sessionId);
          // Appended before, by this run's earlier attempt: the Log keeps the first one.
          if (session.eventIds.has(id)) break;
          const at = Date.now();
          const metadata = nextLogPosition(session);
          const context = { actor: draft.actor, accountId: session.ownerAccountId, causationId: origin.runId, correlationId: origin.rootRunId, at };
          try {
            await this.log.append(sessionStream(sessionId), [{ id, type: draft.type, data: draft.data, metadata }], context, { expected: revision });
            appended.push({ id, sessionId, seq: metadata.seq, event: { type: draft.type, ...(draft.data as object), actor: draft.actor } as SessionEvent['event'], createdAt: at });
            break;
          } catch (error) {
            if (!(error instanceof WrongExpectedVersionError) || attempt === SESSION_ATTEMPTS) throw error;
            await sleep(randomInt(1, 5 * attempt));
          }
        }
      }
      return appended;
    });
  }

  /** The session as its stream has it now, read forward from what this process saw last. */
  private async load(sessionId: string): Promise<LoadedSession> {
    const cached = this.cache.get(sessionId);
    this.cache.delete(sessionId);
    const loaded = await loadSession(this.log, sessionId, cached);
    if (loaded.session) {
      this.cache.set(sessionId, loaded);
      if (this.cache.size > CACHED_SESSIONS) this.cache.delete(this.cache.keys().next().value!);
    }
    return loaded;
  }

  /** Queues the agent turn answering a message: the run's id comes from the request, so a rerun queues nothing twice. */
  async queueTurn(context: ActionContext, session: SessionState, messageEventId: string): Promise<{ runId: string; position: Position | null }> {
    const runId = uuidFrom(`${context.requestKey ?? context.actionCid}:run`);
    const { position } = await decideOnRun(this.log, actionStamp(context), runId, (run) =>
      decideQueueAgentTurn(run, {
        ownerAccountId: session.ownerAccountId,
        agentId: session.agentId,
        sessionId: session.id,
        runId,
        origin: 'user',
        messageEventIds: [messageEventId],
      }),
    );
    return { runId, position };
  }

  /** Cancels every live run of the session; the number canceled. */
  async cancelRuns(context: ActionContext, sessionId: string, reason: CancelReason): Promise<number> {
    const live = this.projections
      .reader('runs')
      .all<Pick<RunRow, 'run_id'>>("SELECT run_id FROM {runs} WHERE session_id = ? AND status NOT IN ('succeeded', 'failed', 'canceled')", sessionId);
    let canceled = 0;
    for (const { run_id } of live) {
      const { position } = await decideOnRun(this.log, actionStamp(context), run_id, (run) => decideCancelRun(run, reason));
      if (position !== null) {
        canceled++;
        await this.settled(position, ['RunCanceled']);
      }
    }
    return canceled;
  }

  /** Removes a deleted session's events from reads. Already removed is done. */
  async removeLog(sessionId: string): Promise<void> {
    try {
      await this.log.store.deleteStream(sessionStream(sessionId));
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }

  /** Read-your-writes for the session read models. */
  async settled(position: Position, eventTypes: readonly string[]): Promise<boolean> {
    return awaitProjections(this.projections, position, eventTypes, this.logger);
  }
}
