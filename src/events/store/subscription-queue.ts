/**
 * The consumer side of a subscription: an async iterator over a queue that adapters push into.
 * When the queue is empty, `pull` lets the adapter fill it on demand (catch-up reads happen in the
 * consumer's own `next()`, so a slow consumer applies backpressure instead of growing memory).
 */
import type { Subscription, SubscriptionMessage } from './types.js';

export interface SubscriptionSource {
  /** Called when the queue is empty and the consumer waits. May push synchronously. */
  pull(queue: SubscriptionQueue): void | Promise<void>;
  onClose(): void | Promise<void>;
}

export class SubscriptionQueue implements Subscription {
  private readonly items: SubscriptionMessage[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<SubscriptionMessage>) => void; reject: (e: unknown) => void } | null =
    null;
  private closed = false;
  private failure: unknown = null;
  private source: SubscriptionSource | null = null;

  attach(source: SubscriptionSource): this {
    this.source = source;
    return this;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(message: SubscriptionMessage): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter.resolve({ value: message, done: false });
      return;
    }
    this.items.push(message);
  }

  /** Ends the subscription with an error the consumer's `next()` will throw. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.failure = error;
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(error);
    void this.source?.onClose();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.items.length = 0;
    this.head = 0;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.resolve({ value: undefined, done: true });
    await this.source?.onClose();
  }

  next(): Promise<IteratorResult<SubscriptionMessage>> {
    // Not an async function: the common case — a message already queued — resolves without the
    // extra promise and microtask an async function adds, which matters at catch-up rates.
    const queued = this.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    return this.wait();
  }

  private shift(): SubscriptionMessage | undefined {
    if (this.head >= this.items.length) return undefined;
    const value = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return value;
  }

  private async wait(): Promise<IteratorResult<SubscriptionMessage>> {
    for (;;) {
      const queued = this.shift();
      if (queued) return { value: queued, done: false };
      if (this.closed) {
        if (this.failure) throw this.failure;
        return { value: undefined, done: true };
      }
      if (this.source) {
        await this.source.pull(this);
        if (this.head < this.items.length || this.closed) continue;
      }
      return new Promise((resolve, reject) => {
        this.waiter = { resolve, reject };
      });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
