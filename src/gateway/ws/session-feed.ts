/**
 * `sessions/<sessionId>`: `subscribed`, a `change` with the SessionInfo, every durable Log event with
 * seq > afterSeq as `append` (every actor's), then the live ones; a `change` when the session is
 * renamed or its status moves (its runs set it); `appendPartial` from the partial bus.
 *
 * The switch from replay to live loses nothing and repeats nothing. The subscription joins the live
 * set before the stream is read, so an event committed from then on reaches it from the live tap
 * (held while the replay runs) and an event committed before is in the read. Both paths may carry the
 * same event — the read can see a commit the tap has not dispatched yet — so delivery keeps the
 * stream revision of the last event sent and drops anything at or below it.
 *
 * Deletion: the session's subscribers get a last `change` (the desktop refetches on any change and
 * finds the session gone), then an error frame saying it was deleted, and the subscription ends.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CHILD_COUNT_SQL, readSessionAccess, sessionEvent, sessionInfo, type ListedSessionRow } from '../../commands/sessions/session-read.js';
import { isLogEvent } from '../../commands/sessions/session-state.js';
import { sessionStream } from '../../commands/sessions/session-stream.js';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import type { PartialMessage } from '../../events/partial-bus.js';
import { StreamNotFoundError } from '../../events/store/errors.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { RunRow } from '../../projections/runs.projection.js';
import type { SessionStatus } from '../../protocol/sessions.js';
import { AgentFeed } from './agent-feed.js';
import { SLOW_CONSUMER_REASON, type WsConnection } from './connection.js';
import { FeedSubscription, type AgentBound } from './feed-subscription.js';
import { encodeFrame, type Frame } from './frames.js';
import { MAX_CATCH_UP_BUFFER } from './limits.js';
import { ReadModelQueue } from './read-model-queue.js';
import { WS_CLOSE } from '../../protocol/ws.js';

const LIFECYCLE_TYPES: ReadonlySet<string> = new Set(['SessionCreated', 'SessionRenamed', 'SessionDeleted']);

/** A live frame held during the replay; `revision` null for frames that are not Log events (never deduplicated). */
interface Held {
  revision: bigint | null;
  frame: Frame;
}

class SessionSubscription extends FeedSubscription<`sessions/${string}`> implements AgentBound {
  /** The stream revision of the last event replayed or sent. */
  lastRevision = -1n;
  private held: Held[] | null = [];

  constructor(
    readonly sessionId: string,
    readonly agentId: string,
    account: string,
    connection: WsConnection,
    private readonly feed: SessionFeed,
  ) {
    super(`sessions/${sessionId}`, account, connection);
  }

  deliver(revision: bigint | null, frame: Frame): void {
    if (this.closed) return;
    if (this.held) {
      if (this.held.length >= MAX_CATCH_UP_BUFFER) this.connection.end(WS_CLOSE.SLOW_CONSUMER, SLOW_CONSUMER_REASON);
      else this.held.push({ revision, frame });
      return;
    }
    if (revision !== null) {
      if (revision <= this.lastRevision) return;
      this.lastRevision = revision;
    }
    this.connection.send(frame);
  }

  /** The replay is done: what the live tap brought meanwhile goes out, minus what the replay sent. */
  goLive(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const { revision, frame } of held) this.deliver(revision, frame);
  }

  protected detach(): void {
    this.held = null;
    this.feed.detach(this);
  }
}

@Injectable()
export class SessionFeed {
  private readonly bySession = new Map<string, Set<SessionSubscription>>();
  /** The status last sent for each subscribed session: a run event that leaves it as it was sends nothing. */
  private readonly statusSent = new Map<string, SessionStatus>();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
    private readonly agents: AgentFeed,
    private readonly queue: ReadModelQueue,
  ) {}

  /** Null when the session is missing or hidden from `account`. Resolves once the replay is sent and the subscription is live. */
  async subscribe(connection: WsConnection, sessionId: string, account: string, afterSeq: number): Promise<SessionSubscription | null> {
    const access = readSessionAccess(this.projections, sessionId, account);
    if (!access) return null;
    const subscription = new SessionSubscription(sessionId, access.row.agent_id!, account, connection, this);
    let set = this.bySession.get(sessionId);
    if (!set) this.bySession.set(sessionId, (set = new Set()));
    set.add(subscription);
    this.agents.bind(subscription);
    connection.adopt(subscription);
    subscription.announce();
    const info = sessionInfo(access.row);
    this.statusSent.set(sessionId, info.status);
    connection.send(encodeFrame({ _: 'change', key: subscription.key, value: info }));
    try {
      for await (const event of this.log.readStream(sessionStream(sessionId))) {
        if (subscription.closed) return subscription;
        subscription.lastRevision = event.revision;
        if (!isLogEvent(event.type) || event.metadata.seq! <= afterSeq) continue;
        connection.send(encodeFrame({ _: 'append', key: subscription.key, event: sessionEvent(event, sessionId) }));
        if (connection.backlogged && !(await connection.paced())) return subscription;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) {
        // Half a replay must not turn live: the client gets the error and subscribes again.
        subscription.close();
        throw error;
      }
      subscription.endWith(deletedMessage(sessionId));
      return subscription;
    }
    subscription.goLive();
    return subscription;
  }

  detach(subscription: SessionSubscription): void {
    this.agents.unbind(subscription);
    const set = this.bySession.get(subscription.sessionId);
    if (!set?.delete(subscription)) return;
    if (set.size > 0) return;
    this.bySession.delete(subscription.sessionId);
    this.statusSent.delete(subscription.sessionId);
  }

  onEvent(event: CatalogEvent): void {
    const sessionId = event.stream.slice('session-'.length);
    const subscribers = this.bySession.get(sessionId);
    if (isLogEvent(event.type)) {
      if (!subscribers) return;
      const frame = encodeFrame({ _: 'append', key: `sessions/${sessionId}`, event: sessionEvent(event, sessionId) });
      for (const subscription of subscribers) subscription.deliver(event.revision, frame);
      return;
    }
    if (!LIFECYCLE_TYPES.has(event.type) || (!subscribers && !this.agents.hasAgentKeys)) return;
    this.queue.after(() => event.position, [event.type], () => this.sessionChanged(sessionId, event.type === 'SessionDeleted', false));
  }

  /** A run's events set its session's status (idle, streaming, stopped, error): subscribers hear of a change. */
  onRunEvent(event: CatalogEvent): void {
    if (this.bySession.size === 0) return;
    const runId = event.stream.slice('run-'.length);
    this.queue.after(() => event.position, [event.type], () => {
      const run = this.projections.reader('runs').get<Pick<RunRow, 'session_id'>>('SELECT session_id FROM {runs} WHERE run_id = ?', runId);
      if (run?.session_id && this.bySession.has(run.session_id)) this.sessionChanged(run.session_id, false, true);
    });
  }

  /** Returns how many subscriptions the partial went to. */
  onPartial(partial: Extract<PartialMessage, { kind: 'session' }>): number {
    const subscribers = this.bySession.get(partial.sessionId);
    if (!subscribers) return 0;
    const frame = encodeFrame({ _: 'appendPartial', key: `sessions/${partial.sessionId}`, partialId: partial.partialId, patch: partial.patch });
    for (const subscription of subscribers) subscription.deliver(null, frame);
    return subscribers.size;
  }

  /** `statusOnly`: a run event, which matters only if the session's status moved. */
  private sessionChanged(sessionId: string, deleted: boolean, statusOnly: boolean): void {
    // The row as it stands, deleted or not: a deleted session's last state is still its last change.
    const row = this.projections
      .reader('session_view')
      .get<ListedSessionRow>(`SELECT s.*, ${CHILD_COUNT_SQL} AS child_session_count FROM {sessions} s WHERE s.session_id = ?`, sessionId);
    if (!row?.agent_id) return;
    const info = sessionInfo(row);
    if (statusOnly && this.statusSent.get(sessionId) === info.status) return;
    if (this.bySession.has(sessionId)) this.statusSent.set(sessionId, info.status);
    const frame = encodeFrame({ _: 'change', key: `sessions/${sessionId}`, value: info });
    if (!statusOnly) this.agents.sessionChanged(row.agent_id, frame);
    for (const subscription of [...(this.bySession.get(sessionId) ?? [])]) {
      if (deleted) subscription.endWith(deletedMessage(sessionId), frame);
      else subscription.deliver(null, frame);
    }
  }
}

const deletedMessage = (sessionId: string): string => `sessions/${sessionId} ended: the session was deleted`;
