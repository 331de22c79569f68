/**
 * Live delivery for the SQLite store.
 *
 * In-process appends are pushed to subscribers right after their commit — no polling. Commits by
 * other processes sharing the file are noticed through a file watch on the WAL (with a slow
 * `data_version` check as a backstop, since file watches can miss events) and read from the file.
 *
 * Exactly-once, in-order delivery rests on two facts: SQLite commits are atomic and serial, so the
 * visible positions are always a prefix of the log; and a subscription's catch-up read and its
 * switch to live happen in the same synchronous step, so no commit can fall between them.
 */
import { watch, type FSWatcher } from 'node:fs';
import { compileFilter, type EventKey } from '../filter.js';
import { position } from '../position.js';
import { SubscriptionQueue, type SubscriptionSource } from '../subscription-queue.js';
import type { AllFilter, RecordedEvent, SubscribeAllOptions, SubscribeStreamOptions, Subscription } from '../types.js';
import { toRecorded, type EventTuple } from './rows.js';

export interface HubReader {
  path: string;
  pageSize: number;
  head(): number;
  eventsAfter(after: number, limit: number): RecordedEvent[];
  dataVersion(): number;
  readAllPage(after: number, limit: number, filter: AllFilter | undefined): RecordedEvent[];
  readStreamPage(stream: string, afterRevision: number, limit: number): RecordedEvent[];
  lastRevision(stream: string): bigint;
  /** Runs `read` in one read transaction: every statement in it sees the same snapshot. */
  snapshot<T>(read: () => T): T;
}

/** A live subscriber this far behind stops being pushed to and reads from the file instead. */
const HIGH_WATER = 10_000;
const BACKSTOP_POLL_MS = 250;

export class LiveHub {
  private readonly subs = new Set<LiveSubscription>();
  private knownHead: number;
  private dataVersion: number;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pollQueued = false;

  constructor(private readonly reader: HubReader) {
    this.knownHead = reader.head();
    this.dataVersion = reader.dataVersion();
  }

  subscribeAll(options: SubscribeAllOptions): Subscription {
    const match = compileFilter(options.filter);
    const from = options.from ?? 'start';
    const sub = new LiveSubscription(this.reader, {
      match,
      readPage: (s) => this.reader.readAllPage(s.lastPosition, this.reader.pageSize, options.filter),
    });
    if (from === 'end') sub.goLive(this.reader.snapshot(() => this.reader.head()));
    else sub.lastPosition = from === 'start' ? 0 : Number(from.commit);
    return this.add(sub);
  }

  subscribeStream(stream: string, options: SubscribeStreamOptions): Subscription {
    const from = options.from ?? 'start';
    const sub = new LiveSubscription(this.reader, {
      match: (e) => e.stream === stream,
      readPage: (s) => this.reader.readStreamPage(stream, s.lastRevision, this.reader.pageSize),
    });
    if (from === 'end') {
      const { revision, head } = this.reader.snapshot(() => ({
        revision: this.reader.lastRevision(stream),
        head: this.reader.head(),
      }));
      sub.lastRevision = Number(revision);
      sub.goLive(head);
    } else {
      sub.lastRevision = from === 'start' ? -1 : Number(from);
    }
    return this.add(sub);
  }

  /**
   * Called after a local commit. `headBefore` is the log's head when that transaction began. If the
   * events cannot be delivered (reading another process's commits failed), the subscriptions end
   * with that error rather than carry on with a gap.
   */
  publishLocal(headBefore: number, rows: EventTuple[]): void {
    try {
      this.publish(headBefore, rows);
    } catch (error) {
      for (const sub of this.subs) sub.queue.fail(error);
    }
  }

  private publish(headBefore: number, rows: EventTuple[]): void {
    const last = rows[rows.length - 1]![0];
    if (this.subs.size === 0) {
      this.knownHead = Math.max(this.knownHead, last);
      return;
    }
    if (headBefore > this.knownHead) {
      // Another process committed in between: read from the file so order is kept.
      this.pollForeign();
      return;
    }
    this.dispatch(rows.map(toRecorded));
    this.knownHead = Math.max(this.knownHead, last);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subs].map((s) => s.queue.close()));
    this.stopWatching();
  }

  private add(sub: LiveSubscription): Subscription {
    if (this.subs.size === 0) {
      // Nobody was listening: start from the file's current state rather than replaying the gap.
      this.knownHead = this.reader.head();
      this.dataVersion = this.reader.dataVersion();
    }
    sub.onClosed = () => {
      this.subs.delete(sub);
      if (this.subs.size === 0) this.stopWatching();
    };
    this.subs.add(sub);
    this.startWatching();
    return sub.queue;
  }

  private dispatch(events: RecordedEvent[]): void {
    for (const sub of this.subs) sub.offer(events);
  }

  private pollForeign(): void {
    this.dataVersion = this.reader.dataVersion();
    for (;;) {
      const events = this.reader.eventsAfter(this.knownHead, this.reader.pageSize);
      if (events.length === 0) return;
      this.dispatch(events);
      this.knownHead = Number(events[events.length - 1]!.position.commit);
      if (events.length < this.reader.pageSize) return;
    }
  }

  private checkForeign = (): void => {
    this.pollQueued = false;
    if (this.subs.size === 0) return;
    if (this.reader.dataVersion() !== this.dataVersion) this.pollForeign();
  };

  private startWatching(): void {
    if (this.timer) return;
    // Kept referenced: an open subscription keeps its process alive, as an open socket would.
    this.timer = setInterval(this.checkForeign, BACKSTOP_POLL_MS);
    if (this.reader.path === ':memory:') return;
    try {
      this.watcher = watch(`${this.reader.path}-wal`, { persistent: false }, () => {
        if (this.pollQueued) return;
        this.pollQueued = true;
        setImmediate(this.checkForeign);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch (error) {
      // No WAL file to watch (it is created lazily on some filesystems): the backstop poll covers it.
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watcher?.close();
    this.watcher = null;
  }
}

interface SubscriptionSpec {
  match: ((event: EventKey) => boolean) | null;
  readPage(sub: LiveSubscription): RecordedEvent[];
}

class LiveSubscription implements SubscriptionSource {
  readonly queue = new SubscriptionQueue().attach(this);
  /** Highest position delivered or known to be irrelevant; delivery resumes after it. */
  lastPosition = 0;
  /** For stream subscriptions: the last revision delivered. */
  lastRevision = -1;
  private live = false;
  onClosed: () => void = () => {};

  constructor(
    private readonly reader: HubReader,
    private readonly spec: SubscriptionSpec,
  ) {}

  goLive(head: number): void {
    this.live = true;
    this.lastPosition = Math.max(this.lastPosition, head);
    this.queue.push({ kind: 'caughtUp', position: this.lastPosition ? position(BigInt(this.lastPosition)) : null });
  }

  /** Catch-up happens here, in the consumer's `next()`, one page at a time. */
  pull(): void {
    if (this.live) return;
    // The page and the head come from one snapshot, so the head is exactly what the page saw:
    // another process's commit between two separate reads would otherwise count as delivered.
    // Switching in the same synchronous step means nothing in this process commits in between.
    const { page, head } = this.reader.snapshot(() => ({ page: this.spec.readPage(this), head: this.reader.head() }));
    for (const event of page) this.deliver(event);
    if (page.length < this.reader.pageSize) this.goLive(head);
  }

  offer(events: RecordedEvent[]): void {
    if (!this.live) return;
    for (const event of events) {
      const pos = Number(event.position.commit);
      if (pos <= this.lastPosition) continue;
      if (this.queue.length >= HIGH_WATER) {
        // Too far behind: stop buffering and read the rest from the file when the consumer drains.
        this.live = false;
        return;
      }
      if (!this.spec.match || this.spec.match(event)) this.deliver(event);
      else this.lastPosition = pos;
    }
  }

  private deliver(event: RecordedEvent): void {
    this.lastPosition = Math.max(this.lastPosition, Number(event.position.commit));
    this.lastRevision = Number(event.revision);
    this.queue.push({ kind: 'event', event });
  }

  onClose(): void {
    this.onClosed();
  }
}
