/**
 * One `/agents/ws` socket: the account it is locked to, its subscriptions, and its outgoing frames.
 *
 * Frames are queued and written in batches (the Outbox), so a burst of events costs each socket one
 * write instead of one per event. A socket still holding more than MAX_UNSENT_BYTES unwritten when
 * its next frames are due is closed as a slow consumer: it can resume losslessly with afterSeq, and
 * the server's memory stays bounded by sockets × (limit + one burst).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Frame } from './frames.js';
import { FLUSH_DUTY, MAX_FLUSH_WAIT_MS, MAX_UNSENT_BYTES, REPLAY_PACE_BYTES } from './limits.js';
import { WS_CLOSE, type SubscriptionKey } from '../../protocol/ws.js';

/** The TCP socket under a WebSocket. */
export interface RawSocket {
  cork(): void;
  uncork(): void;
  write(chunk: Buffer): boolean;
}

/** What the gateway uses of a `ws` server-side socket (the package ships no type declarations here). */
export interface ServerSocket {
  readonly readyState: number;
  /** Bytes handed to the socket and not yet written to the kernel. */
  readonly bufferedAmount: number;
  /**
   * `ws` keeps its TCP socket here. Frames are written to it directly, already framed (frames.ts):
   * measured with 500 subscribers, a `ws.send()` per frame per socket — each its own framing and its
   * own writev — took over half the server's CPU. With compression off, `ws` itself writes to this
   * socket synchronously (pings, the close frame), so writes from both keep their order.
   */
  readonly _socket: RawSocket;
  close(code: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  on(event: 'pong', listener: () => void): void;
}

export interface Subscription {
  readonly key: SubscriptionKey;
  /** Stops delivery and forgets the subscription, in its feed and on its socket. */
  close(): void;
}

const OPEN = 1;
const REPLAY_POLL_MS = 5;

export const SLOW_CONSUMER_REASON = `Too slow: over ${MAX_UNSENT_BYTES / 2 ** 20} MiB of frames unsent; reconnect and resubscribe with afterSeq`;

/**
 * Writes every socket's queued frames together. Each write is a system call and a trip through the
 * TCP stack on both ends; with hundreds of subscribers, writing each event as it comes would spend the
 * server on them. So writing may take at most 1/FLUSH_DUTY of the time: after a pass that took d ms,
 * the next waits until FLUSH_DUTY × d ms after it began (never more than MAX_FLUSH_WAIT_MS), and each
 * socket then gets one write holding everything that arrived meanwhile. A pass over a few sockets
 * takes microseconds, so a quiet server still writes on the next turn of the event loop.
 */
export class Outbox {
  private dirty: WsConnection[] = [];
  private scheduled = false;
  private nextFlush = 0;

  schedule(connection: WsConnection): void {
    this.dirty.push(connection);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.nextFlush - performance.now();
    if (wait < 1) setImmediate(this.flushAll);
    else setTimeout(this.flushAll, wait);
  }

  private readonly flushAll = (): void => {
    this.scheduled = false;
    const started = performance.now();
    const dirty = this.dirty;
    this.dirty = [];
    for (const connection of dirty) connection.flush();
    this.nextFlush = started + Math.min(MAX_FLUSH_WAIT_MS, FLUSH_DUTY * (performance.now() - started));
  };
}

export class WsConnection {
  /** Set by the first successful Subscribe; the socket may not switch accounts afterwards. */
  account: string | null = null;
  /** Whether the socket answered the last heartbeat ping. */
  alive = true;
  private readonly subscriptions = new Map<string, Subscription>();
  private pending: Frame[] = [];
  private pendingBytes = 0;
  private ended = false;
  private work: Promise<void> = Promise.resolve();

  constructor(
    readonly id: number,
    readonly socket: ServerSocket,
    private readonly outbox: Outbox,
  ) {}

  get isOpen(): boolean {
    return !this.ended;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  subscription(key: string): Subscription | undefined {
    return this.subscriptions.get(key);
  }

  adopt(subscription: Subscription): void {
    this.subscriptions.set(subscription.key, subscription);
  }

  release(subscription: Subscription): void {
    if (this.subscriptions.get(subscription.key) === subscription) this.subscriptions.delete(subscription.key);
  }

  /** Runs inbound frames one at a time, so a socket's subscriptions are decided in the order sent. */
  serially(task: () => Promise<void>): void {
    this.work = this.work.then(task);
  }

  send(frame: Frame): void {
    if (this.ended) return;
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    if (this.pending.length === 1) this.outbox.schedule(this);
  }

  flush(): void {
    const frames = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.ended || this.socket.readyState !== OPEN) return;
    // Still backed up from earlier flushes: the client is not keeping up. A burst larger than the
    // limit is no sign of that by itself, so what this flush adds is not counted.
    if (this.socket.bufferedAmount > MAX_UNSENT_BYTES) {
      this.end(WS_CLOSE.SLOW_CONSUMER, SLOW_CONSUMER_REASON);
      return;
    }
    // One write holding everything queued since the last flush, however many frames that is.
    const raw = this.socket._socket;
    raw.cork();
    for (const frame of frames) raw.write(frame);
    raw.uncork();
  }

  /** More is unsent than a replay should pile up. */
  get backlogged(): boolean {
    return this.socket.bufferedAmount + this.pendingBytes > REPLAY_PACE_BYTES;
  }

  /**
   * Waits until the socket has taken most of what was sent, so a long replay streams at the
   * client's pace instead of tripping the slow-consumer limit. False once the socket has ended.
   */
  async paced(): Promise<boolean> {
    while (!this.ended && this.backlogged) await sleep(REPLAY_POLL_MS);
    return !this.ended;
  }

  /** Ends every subscription, then closes the socket (idempotent). Without a code, the socket is already closing. */
  end(code?: number, reason?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.pending = [];
    this.pendingBytes = 0;
    for (const subscription of [...this.subscriptions.values()]) subscription.close();
    if (code !== undefined && this.socket.readyState === OPEN) this.socket.close(code, reason);
  }
}
