/**
 * Claims runnable runs and executes them. The queue is the runs read model; a claim is an append at
 * the run stream's expected revision, so across processes exactly one claimer wins. A claimed run is
 * held under a lease this process renews; a process that dies stops renewing, and once the lease
 * lapses any process re-claims the run (counting an attempt). At start, this process takes up again
 * the runs it held when it stopped, without counting one.
 *
 * Order: interactive runs before background ones, each in the order queued; and one run at a time per
 * session — a run waits while an earlier run of its session is unfinished. Every process agrees on
 * that order (the queue position is the RunQueued event's place in `$all`), and a read model that lags
 * only ever shows an earlier run as less finished than it is, so the rule holds across processes too.
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG } from '../../config/config.module.js';
import { ensureDataDir, type Config } from '../../config/config.js';
import { RUN_EVENTS } from '../../events/catalog/run-events.js';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog, LogSubscription } from '../../events/event-log.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { RunRow } from '../../projections/runs.projection.js';
import type { RunState } from '../../commands/runs/run-state.js';
import { decideClaim, decideOutcome, decideRenewLease, decideStart, holds } from '../../commands/runs/runs.decider.js';
import { decideOnRun, type RunStamp } from '../../commands/runs/run-stream.js';
import { RUN_EXECUTOR, type ClaimedRun, type RunExecutor, type RunOutcome } from '../run-executor.js';
import { nodeId } from './node-id.js';
import { uuidFrom } from '../../commands/action-context.js';
import { SessionGoneError, SessionWriter } from '../../commands/sessions/session-writer.js';

const RUN_EVENT_TYPES = RUN_EVENTS.map((definition) => definition.type);
/**
 * The run events after which a run may have become claimable: queued (again), or a session's run
 * ended so that its next one may go. Claims, starts and renewals free nothing, and a lapsed lease
 * comes with no event at all (the sweep finds those): scanning after them would only repeat the last scan.
 */
const RUNNABLE_AFTER: ReadonlySet<string> = new Set(['RunQueued', 'RunWoken', 'RunAttemptFailed', 'RunSucceeded', 'RunFailed', 'RunCanceled']);
/** Candidates looked at per scan; more wait for the next. */
const SCAN_BATCH = 200;

/** What a scan reads of a candidate: enough to judge it and to stamp the claim. */
type Candidate = Pick<RunRow, 'run_id' | 'root_run_id' | 'account_id' | 'status' | 'lease_owner' | 'lease_until' | 'not_before'>;

interface Execution {
  controller: AbortController;
  renewal?: NodeJS.Timeout;
  done?: Promise<void>;
}

@Injectable()
export class RunDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly owner: string;
  private readonly logger = new Logger('Runs');
  private readonly executing = new Map<string, Execution>();
  private subscription?: LogSubscription;
  private sweep?: NodeJS.Timeout;
  private wake?: NodeJS.Timeout;
  private wakeTime = 0;
  private scanning = false;
  private rescan = false;
  private stopped = false;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
    @Inject(RUN_EXECUTOR) private readonly executor: RunExecutor,
    @Inject(CONFIG) private readonly config: Config,
    private readonly sessions: SessionWriter,
  ) {
    this.owner = nodeId(ensureDataDir(config));
  }

  onApplicationBootstrap(): void {
    this.subscription = this.log.subscribeAll({ from: 'end', filter: { streamPrefixes: ['run-'] } });
    void this.follow(this.subscription);
    // Lapsed leases come with no event: a sweep finds them. Due retries get a timer of their own.
    this.sweep = setInterval(() => this.schedule(), Math.max(250, Math.floor(this.config.runLeaseMs / 3)));
    this.sweep.unref();
    void this.firstScan();
  }

  /** The first scan waits for the queue to hold everything queued before this process started. */
  private async firstScan(): Promise<void> {
    const head = await this.log.store.headPosition();
    if (head) await this.projections.waitFor(head, { eventTypes: RUN_EVENT_TYPES, timeoutMs: 60_000 }).catch(() => undefined);
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweep);
    clearTimeout(this.wake);
    await this.subscription?.close();
    // Executions are abandoned, not failed: their leases lapse, and this node takes them up on restart.
    for (const execution of this.executing.values()) {
      clearInterval(execution.renewal);
      execution.controller.abort(new Error('the server is shutting down'));
    }
    await Promise.allSettled([...this.executing.values()].map((execution) => execution.done));
  }

  /** The runs this process is executing now. */
  active(): string[] {
    return [...this.executing.keys()];
  }

  private async follow(subscription: LogSubscription): Promise<void> {
    try {
      for await (const message of subscription) {
        if (message.kind !== 'event') continue;
        const { event } = message;
        if (event.type === 'RunCanceled') this.abort(event.stream.slice('run-'.length), 'the run was canceled');
        if (!RUNNABLE_AFTER.has(event.type)) continue;
        await this.projections.waitFor(event.position, { eventTypes: RUN_EVENT_TYPES }).catch(() => undefined);
        this.schedule();
      }
    } catch (error) {
      if (!this.stopped) this.logger.error(`The run event feed stopped: ${(error as Error).message}`);
    }
  }

  private abort(runId: string, reason: string): void {
    this.executing.get(runId)?.controller.abort(new Error(reason));
  }

  /** One scan at a time: a scan asked for during one runs right after it. */
  private schedule(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    void this.scan()
      .catch((error: unknown) => this.logger.error(`Scanning the run queue failed: ${(error as Error).message}`))
      .finally(() => {
        this.scanning = false;
        if (this.rescan) {
          this.rescan = false;
          this.schedule();
        }
      });
  }

  private async scan(): Promise<void> {
    // Full: a run ending here schedules the next scan.
    if (this.executing.size >= this.config.maxConcurrentRuns) return;
    const now = Date.now();
    let nextDue = Infinity;
    for (const row of this.candidates()) {
      if (this.stopped || this.executing.size >= this.config.maxConcurrentRuns) return;
      if (this.executing.has(row.run_id)) continue;
      if (!this.claimable(row, now)) {
        if (row.status === 'queued') nextDue = Math.min(nextDue, row.not_before ?? now);
        continue;
      }
      // Reserved before the claim: a run this process holds is only ever executed once here.
      const execution: Execution = { controller: new AbortController() };
      this.executing.set(row.run_id, execution);
      try {
        const { run, position } = await decideOnRun(this.log, this.stamp(row), row.run_id, (current, at) =>
          decideClaim(current, { owner: this.owner, now: at, leaseMs: this.config.runLeaseMs }),
        );
        if (position === null || !holds(run, this.owner)) {
          this.executing.delete(row.run_id);
          continue;
        }
        execution.done = this.execute(run, execution);
      } catch (error) {
        this.executing.delete(row.run_id);
        throw error;
      }
    }
    if (nextDue !== Infinity) this.wakeAt(nextDue);
  }

  /** A scan when the earliest backoff ends. */
  private wakeAt(at: number): void {
    if (this.wake && this.wakeTime <= at) return;
    clearTimeout(this.wake);
    this.wakeTime = at;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.schedule();
    }, Math.max(0, at - Date.now()) + 1);
    this.wake.unref();
  }

  /** Unfinished runs with no earlier unfinished run in their session, interactive first, in queue order. */
  private candidates(): Candidate[] {
    return this.projections.reader('runs').all<Candidate>(
      `SELECT r.run_id, r.root_run_id, r.account_id, r.status, r.lease_owner, r.lease_until, r.not_before FROM {runs} r
       WHERE r.status IN ('queued', 'claimed', 'running')
         AND NOT EXISTS (SELECT 1 FROM {runs} e WHERE e.session_id = r.session_id AND e.queued_at_commit < r.queued_at_commit
                         AND e.status NOT IN ('succeeded', 'failed', 'canceled'))
       ORDER BY r.priority = 'interactive' DESC, r.queued_at_commit
       LIMIT ${SCAN_BATCH}`,
    );
  }

  /** Worth a claim attempt by the read model; the run's stream decides. */
  private claimable(row: Candidate, now: number): boolean {
    if (row.status === 'queued') return (row.not_before ?? 0) <= now;
    return row.lease_owner === this.owner || (row.lease_until ?? 0) < now;
  }

  private async execute(run: RunState, execution: Execution): Promise<void> {
    const stamp = this.stamp({ account_id: run.ownerAccountId, run_id: run.id, root_run_id: run.rootRunId });
    const { signal } = execution.controller;
    execution.renewal = setInterval(() => void this.renew(run.id, stamp, execution), Math.max(100, Math.floor(this.config.runLeaseMs / 3)));
    try {
      await decideOnRun(this.log, stamp, run.id, (current) => decideStart(current, this.owner));
      const outcome = await this.outcomeOf(run, signal);
      clearInterval(execution.renewal);
      // Shutting down abandons the run rather than failing it: its lease lapses, and this node takes
      // it up again when it restarts.
      if (this.stopped) return;
      // A cancel or a lost lease that landed meanwhile wins: decideOutcome then records nothing.
      const recorded = await decideOnRun(this.log, stamp, run.id, (current, now) => decideOutcome(current, { owner: this.owner, outcome, now, jitter: Math.random() }));
      if (recorded.position && recorded.run?.status === 'failed') await this.reportFailure(recorded.run);
    } catch (error) {
      this.logger.error(`Run ${run.id} could not be recorded: ${(error as Error).message}`);
    } finally {
      clearInterval(execution.renewal);
      this.executing.delete(run.id);
      this.schedule();
    }
  }

  private async outcomeOf(run: RunState, signal: AbortSignal): Promise<RunOutcome> {
    const claimed: ClaimedRun = {
      runId: run.id,
      rootRunId: run.rootRunId,
      attempt: run.attempt,
      ownerAccountId: run.ownerAccountId,
      agentId: run.agentId,
      sessionId: run.sessionId,
      messageEventIds: run.messageEventIds,
      origin: run.origin,
      priority: run.priority,
    };
    try {
      return await this.executor.execute(claimed, signal);
    } catch (error) {
      this.logger.error(`Run ${run.id} failed unexpectedly: ${(error as Error).stack ?? String(error)}`);
      return { status: 'failed', error: { code: 'internal_error', message: 'The run failed unexpectedly on the server; see its log' }, retryable: false };
    }
  }

  /** A run that failed for good says so in its session's Log, for the people reading it. */
  private async reportFailure(run: RunState): Promise<void> {
    const draft = { type: 'error' as const, data: { message: run.error!.message || run.error!.code }, actor: 'system' as const, id: uuidFrom(`${run.id}:failed`) };
    try {
      await this.sessions.appendRuntime(run.sessionId, [draft], { runId: run.id, rootRunId: run.rootRunId });
    } catch (error) {
      if (!(error instanceof SessionGoneError)) throw error;
    }
  }

  /** Renews the lease, or — when another process has taken the run over — stops executing it. */
  private async renew(runId: string, stamp: RunStamp, execution: Execution): Promise<void> {
    try {
      const { run } = await decideOnRun(this.log, stamp, runId, (current, now) => decideRenewLease(current, { owner: this.owner, now, leaseMs: this.config.runLeaseMs }));
      if (!holds(run, this.owner)) execution.controller.abort(new Error('the run is no longer held by this server'));
    } catch (error) {
      this.logger.warn(`Renewing the lease of run ${runId} failed: ${(error as Error).message}`);
    }
  }

  private stamp(row: Pick<RunRow, 'account_id' | 'run_id' | 'root_run_id'>): RunStamp {
    return {
      context: { actor: 'system', accountId: row.account_id, causationId: row.run_id, correlationId: row.root_run_id },
      eventId: () => randomUUID(),
    };
  }
}
