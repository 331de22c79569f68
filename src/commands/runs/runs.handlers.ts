/**
 * The run actions (spec/http-api.md, "GetRun", "ListRuns", "CancelRun", "RetrySession"). Reads
 * answer from the runs read model; cancels decide on each run's stream.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import { ApiError } from '../../protocol/api-error.js';
import {
  DEFAULT_RUN_PAGE,
  MAX_RUN_PAGE,
  RUN_STATUSES,
  type CancelRun,
  type CancelRunResponse,
  type GetRun,
  type GetRunResponse,
  type ListRuns,
  type ListRunsResponse,
  type RetrySession,
  type RetrySessionResponse,
  type RunStatus,
} from '../../protocol/runs.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { RunRow } from '../../projections/runs.projection.js';
import { uuidFrom } from '../action-context.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { describe } from '../accounts/credentials-input.js';
import { parseAgentId, readAccess } from '../agents/agent-read.js';
import { agentNotFound } from '../agents/agents.decider.js';
import { requireAbility, sessionNotFound } from '../sessions/session-access.js';
import { parseSessionId, readSessionAccess } from '../sessions/session-read.js';
import { parseLimit } from '../page-limit.js';
import { awaitProjections } from '../stream-decisions.js';
import { CHILD_RUNS_SQL, parseRunId, readRunAccess, runInfo, runNotFound } from './run-read.js';
import { decideCancelRun, decideQueueAgentTurn } from './runs.decider.js';
import { actionStamp, decideOnRun, loadRun } from './run-stream.js';

@Injectable()
export class GetRunHandler implements ActionHandler<GetRun, GetRunResponse> {
  readonly action = 'GetRun' as const;
  readonly fields = ['runId'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: GetRun, context: ActionContext): Promise<GetRunResponse> {
    const read = readRunAccess(this.projections, parseRunId(action.runId, 'GetRun.runId'), context.account);
    if (!read) throw runNotFound();
    return { _: 'GetRunResponse', run: runInfo(read.row) };
  }
}

@Injectable()
export class ListRunsHandler implements ActionHandler<ListRuns, ListRunsResponse> {
  readonly action = 'ListRuns' as const;
  readonly fields = ['rootRunId', 'sessionId', 'agentId', 'status', 'limit'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: ListRuns, context: ActionContext): Promise<ListRunsResponse> {
    const selectors = (['rootRunId', 'sessionId', 'agentId'] as const).filter((key) => action[key] !== undefined);
    if (selectors.length !== 1) {
      throw new ApiError(400, `ListRuns needs exactly one of rootRunId, sessionId or agentId; got ${selectors.length ? selectors.join(' and ') : 'none'}`);
    }
    if (action.status !== undefined && !RUN_STATUSES.includes(action.status as RunStatus)) {
      throw new ApiError(400, `ListRuns.status must be one of ${RUN_STATUSES.join(', ')}; got ${describe(action.status)}`);
    }
    const limit = parseLimit(action.limit, 'ListRuns.limit', DEFAULT_RUN_PAGE, MAX_RUN_PAGE);
    let where: string;
    let param: string;
    let order = 'r.created_at DESC, r.run_id DESC';
    if (action.rootRunId !== undefined) {
      param = parseRunId(action.rootRunId, 'ListRuns.rootRunId');
      if (!readRunAccess(this.projections, param, context.account)) throw runNotFound();
      where = 'r.root_run_id = ?';
      // The tree oldest first, for rendering it.
      order = 'r.created_at, r.run_id';
    } else if (action.sessionId !== undefined) {
      param = parseSessionId(action.sessionId, 'ListRuns.sessionId');
      if (!readSessionAccess(this.projections, param, context.account)) throw sessionNotFound();
      where = 'r.session_id = ? AND r.parent_run_id IS NULL';
    } else {
      param = parseAgentId(action.agentId, 'ListRuns.agentId');
      if (!readAccess(this.projections, param, context.account)) throw agentNotFound();
      where = 'r.agent_id = ?';
    }
    const statusFilter = action.status !== undefined ? ' AND r.status = ?' : '';
    const rows = this.projections.reader('runs').all<RunRow & { child_run_count: number }>(
      `SELECT r.*, ${CHILD_RUNS_SQL} AS child_run_count FROM {runs} r WHERE ${where}${statusFilter} ORDER BY ${order} LIMIT ?`,
      param,
      ...(action.status !== undefined ? [action.status] : []),
      limit,
    );
    return { _: 'ListRunsResponse', runs: rows.map(runInfo) };
  }
}

@Injectable()
export class CancelRunHandler implements ActionHandler<CancelRun, CancelRunResponse> {
  readonly action = 'CancelRun' as const;
  readonly fields = ['runId'] as const;
  private readonly logger = new Logger('CancelRun');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  /** The run and every unfinished descendant; executing ones are aborted by their dispatcher. */
  async handle(action: CancelRun, context: ActionContext): Promise<CancelRunResponse> {
    const runId = parseRunId(action.runId, 'CancelRun.runId');
    const read = readRunAccess(this.projections, runId, context.account);
    if (!read) throw runNotFound();
    requireAbility(read.role, 'write', 'cancel runs', runNotFound);
    const tree = this.projections.reader('runs').all<{ run_id: string }>(
      `WITH RECURSIVE tree(run_id) AS (SELECT ? UNION SELECT r.run_id FROM {runs} r JOIN tree t ON r.parent_run_id = t.run_id)
       SELECT run_id FROM tree`,
      runId,
    );
    let canceled = false;
    for (const { run_id } of tree) {
      const { position } = await decideOnRun(this.log, actionStamp(context), run_id, (run) => decideCancelRun(run, 'canceled'));
      if (position) {
        canceled = true;
        await awaitProjections(this.projections, position, ['RunCanceled'], this.logger);
      }
    }
    return { _: 'CancelRunResponse', runId, canceled };
  }
}

@Injectable()
export class RetrySessionHandler implements ActionHandler<RetrySession, RetrySessionResponse> {
  readonly action = 'RetrySession' as const;
  readonly fields = ['sessionId'] as const;
  private readonly logger = new Logger('RetrySession');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  /** A new run answering what the failed one answered, once no run of the session is live. */
  async handle(action: RetrySession, context: ActionContext): Promise<RetrySessionResponse> {
    const sessionId = parseSessionId(action.sessionId, 'RetrySession.sessionId');
    const read = readSessionAccess(this.projections, sessionId, context.account);
    requireAbility(read?.role ?? null, 'chat', 'retry sessions');
    const runs = this.projections.reader('runs');
    const live = runs.get<{ run_id: string }>("SELECT run_id FROM {runs} WHERE session_id = ? AND status NOT IN ('succeeded', 'failed', 'canceled') LIMIT 1", sessionId);
    if (live) throw new ApiError(409, 'The agent is working in this thread right now; RetrySession is accepted once its run has ended');
    const latest = runs.get<RunRow>('SELECT * FROM {runs} WHERE session_id = ? AND parent_run_id IS NULL ORDER BY queued_at_commit DESC LIMIT 1', sessionId);
    if (!latest || latest.status !== 'failed') {
      throw new ApiError(409, `RetrySession re-runs a session whose latest run failed; ${latest ? `its latest run ${latest.status}` : 'it has no runs'}`);
    }
    const runId = uuidFrom(`${context.actionCid}:retry`);
    const { run: failed } = await loadRun(this.log, latest.run_id);
    const { position } = await decideOnRun(this.log, actionStamp(context), runId, (run) =>
      decideQueueAgentTurn(run, {
        ownerAccountId: latest.account_id,
        agentId: latest.agent_id,
        sessionId,
        runId,
        origin: 'user',
        messageEventIds: failed?.messageEventIds ?? [],
      }),
    );
    if (position) await awaitProjections(this.projections, position, ['RunQueued'], this.logger);
    return { _: 'RetrySessionResponse', sessionId, assistantEventId: '' };
  }
}
