/**
 * The load-decide-append loops of the session commands, shared by their handlers and by DeleteAgent's
 * cascade. Appends to one session are queued in this process, so concurrent messages to a session
 * take their turns instead of racing for the same revision; another process's append still makes
 * the decision run again on what is there now.
 */
import { randomInt } from 'node:crypto';
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
import { decideOnRun } from '../runs/run-stream.js';
import type { RunRow } from '../../projections/runs.projection.js';
import { appendDecision, awaitProjections, keptChanging } from '../stream-decisions.js';
import { loadSession, sessionStream } from './session-stream.js';
import type { SessionState } from './session-state.js';

/** Another process appending to the same session is rare; ten rounds with jitter outlast any burst of it. */
const SESSION_ATTEMPTS = 10;

export interface SessionDecision {
  session: SessionState | null;
  agent: AgentState | null;
  role: AgentAccessRole | null;
}

@Injectable()
export class SessionWriter {
  private readonly queue = new KeyedQueue();
  private readonly logger = new Logger('Sessions');

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
        const { session, revision } = await loadSession(this.log, sessionId);
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

  /** Queues the agent turn answering a message: the run's id comes from the request, so a rerun queues nothing twice. */
  async queueTurn(context: ActionContext, session: SessionState, messageEventId: string): Promise<{ runId: string; position: Position | null }> {
    const runId = uuidFrom(`${context.requestKey ?? context.actionCid}:run`);
    const position = await decideOnRun(this.log, context, runId, (run) =>
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
      const position = await decideOnRun(this.log, context, run_id, (run) => decideCancelRun(run, reason));
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
