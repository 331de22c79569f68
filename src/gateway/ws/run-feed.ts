/**
 * `runs/<rootRunId>`: one subscription streams a whole run tree (the key is the ROOT run id). On
 * subscribe, one `change` per run in the tree; then a `change` whenever a run of the tree changes
 * (a lease renewal changes nothing a client shows, so it sends nothing); `appendPartial` from the
 * partial bus. Durable journal `append` frames come with the workflow journal, which the log does not
 * have yet, so afterSeq has nothing to replay here.
 */
import { Injectable } from '@nestjs/common';
import { CHILD_RUNS_SQL, readRunAccess, runInfo } from '../../commands/runs/run-read.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import type { PartialMessage } from '../../events/partial-bus.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { RunRow } from '../../projections/runs.projection.js';
import type { RunInfo } from '../../protocol/runs.js';
import { AgentFeed } from './agent-feed.js';
import type { WsConnection } from './connection.js';
import { FeedSubscription, type AgentBound } from './feed-subscription.js';
import { encodeFrame } from './frames.js';
import { ReadModelQueue } from './read-model-queue.js';

type CountedRunRow = RunRow & { child_run_count: number };

class RunTreeSubscription extends FeedSubscription<`runs/${string}`> implements AgentBound {
  constructor(
    readonly rootRunId: string,
    readonly agentId: string,
    account: string,
    connection: WsConnection,
    private readonly feed: RunFeed,
  ) {
    super(`runs/${rootRunId}`, account, connection);
  }

  protected detach(): void {
    this.feed.detach(this);
  }
}

/** What a client sees of a run, minus the time it was last touched: equal means nothing to send. */
const shown = ({ updatedAt: _touched, ...info }: RunInfo): string => JSON.stringify(info);

@Injectable()
export class RunFeed {
  private readonly byRoot = new Map<string, Set<RunTreeSubscription>>();
  /** Per subscribed tree, what its runs last looked like when sent. */
  private readonly lastShown = new Map<string, Map<string, string>>();

  constructor(
    private readonly projections: ProjectionService,
    private readonly agents: AgentFeed,
    private readonly queue: ReadModelQueue,
  ) {}

  /**
   * Null when the run is missing, hidden from `account`, or not a root: a tree is subscribed by its
   * root's id, and a child's id names no tree.
   */
  subscribe(connection: WsConnection, rootRunId: string, account: string): RunTreeSubscription | null {
    const access = readRunAccess(this.projections, rootRunId, account);
    if (!access || access.row.root_run_id !== rootRunId) return null;
    const subscription = new RunTreeSubscription(rootRunId, access.row.agent_id, account, connection, this);
    let set = this.byRoot.get(rootRunId);
    if (!set) this.byRoot.set(rootRunId, (set = new Set()));
    set.add(subscription);
    this.agents.bind(subscription);
    connection.adopt(subscription);
    subscription.announce();
    const shownNow = this.lastShown.get(rootRunId) ?? new Map<string, string>();
    this.lastShown.set(rootRunId, shownNow);
    for (const row of this.tree(rootRunId)) {
      const info = runInfo(row);
      shownNow.set(info.id, shown(info));
      connection.send(encodeFrame({ _: 'change', key: subscription.key, value: info }));
    }
    return subscription;
  }

  detach(subscription: RunTreeSubscription): void {
    this.agents.unbind(subscription);
    const set = this.byRoot.get(subscription.rootRunId);
    if (!set?.delete(subscription)) return;
    if (set.size > 0) return;
    this.byRoot.delete(subscription.rootRunId);
    this.lastShown.delete(subscription.rootRunId);
  }

  onEvent(event: CatalogEvent): void {
    if (this.byRoot.size === 0) return;
    const runId = event.stream.slice('run-'.length);
    this.queue.after(() => event.position, [event.type], () => this.changed(runId));
  }

  onPartial(partial: Extract<PartialMessage, { kind: 'run' }>): number {
    const subscribers = this.byRoot.get(partial.rootRunId);
    if (!subscribers) return 0;
    const frame = encodeFrame({
      _: 'appendPartial',
      key: `runs/${partial.rootRunId}`,
      runId: partial.runId,
      partialId: partial.partialId,
      patch: partial.patch,
    });
    for (const subscription of subscribers) subscription.connection.send(frame);
    return subscribers.size;
  }

  private changed(runId: string): void {
    const row = this.projections.reader('runs').get<CountedRunRow>(`SELECT r.*, ${CHILD_RUNS_SQL} AS child_run_count FROM {runs} r WHERE r.run_id = ?`, runId);
    const subscribers = row && this.byRoot.get(row.root_run_id);
    if (!row || !subscribers) return;
    const info = runInfo(row);
    const shownNow = this.lastShown.get(row.root_run_id)!;
    const now = shown(info);
    if (shownNow.get(runId) === now) return;
    shownNow.set(runId, now);
    const frame = encodeFrame({ _: 'change', key: `runs/${row.root_run_id}`, value: info });
    for (const subscription of subscribers) subscription.connection.send(frame);
  }

  private tree(rootRunId: string): CountedRunRow[] {
    return this.projections
      .reader('runs')
      .all<CountedRunRow>(`SELECT r.*, ${CHILD_RUNS_SQL} AS child_run_count FROM {runs} r WHERE r.root_run_id = ? ORDER BY r.created_at, r.run_id`, rootRunId);
  }
}
