/**
 * Bridges a KurrentDB catch-up subscription to the port's queue-backed Subscription.
 *
 * The client reports "caught up" as a stream event emitted while it processes the server's message,
 * but events before that message may still sit in the client's readable buffer. Pushing a marker into
 * that same buffer keeps the signal in its place among the events.
 */
import type {
  AllStreamResolvedEvent,
  CatchupSubscription,
  ReadableSubscription,
  ResolvedEvent,
} from '@eventstore/db-client';
import { StoreUnavailableError } from '../errors.js';
import type { EventKey } from '../filter.js';
import type { Position } from '../position.js';
import { SubscriptionQueue, type SubscriptionSource } from '../subscription-queue.js';
import { isSystemEvent, toPosition, toRecordedEvent } from './convert.js';
import { mapKurrentError, type ErrorContext } from './errors.js';

export type ClientSubscription = ReadableSubscription<ResolvedEvent | AllStreamResolvedEvent> & CatchupSubscription;

const CAUGHT_UP = Object.freeze({ caughtUp: true });

/** Queued messages beyond which the client stops reading, so gRPC flow control holds the server back. */
const HIGH_WATER = 1_000;

export interface SubscriptionSpec {
  /** The caller's whole filter, applied on top of the server-side part; null keeps everything. */
  match: ((event: EventKey) => boolean) | null;
  /** Reported as the caught-up position until an event is seen: the exclusive start, if one was given. */
  start: Position | null;
  context: ErrorContext;
}

export class KurrentSubscription implements SubscriptionSource {
  readonly queue = new SubscriptionQueue().attach(this);
  /** Position of the newest event seen, delivered or filtered out here. */
  private last: Position | null;
  private paused = false;
  private closing = false;
  private failed = false;

  constructor(
    private readonly subscription: ClientSubscription,
    private readonly spec: SubscriptionSpec,
    private readonly onClosed: () => void,
  ) {
    this.last = spec.start;
    subscription.on('caughtUp', () => subscription.push(CAUGHT_UP));
    subscription.on('data', (item: unknown) => this.receive(item));
    subscription.on('error', (error: unknown) => this.fail(mapKurrentError(error, spec.context)));
    subscription.on('end', () => {
      if (!this.closing) {
        this.fail(new StoreUnavailableError(`KurrentDB at ${spec.context.server} ended the subscription`));
      }
    });
  }

  pull(): void {
    if (!this.paused) return;
    this.paused = false;
    this.subscription.resume();
  }

  async onClose(): Promise<void> {
    this.closing = true;
    this.onClosed();
    try {
      await this.subscription.unsubscribe();
    } catch (error) {
      // After a failure the consumer already has the subscription's error; unsubscribing a call that
      // never started only fails again for the same reason.
      if (!this.failed) throw mapKurrentError(error, this.spec.context);
    }
  }

  private receive(item: unknown): void {
    if (this.queue.isClosed) return;
    if (item === CAUGHT_UP) {
      this.queue.push({ kind: 'caughtUp', position: this.last });
      return;
    }
    const recorded = (item as ResolvedEvent).event;
    if (!recorded) return;
    try {
      const unwanted = this.spec.match && !this.spec.match({ stream: recorded.streamId, type: recorded.type });
      if (isSystemEvent(recorded) || unwanted) {
        if (recorded.position) this.last = toPosition(recorded.position);
        return;
      }
      const event = toRecordedEvent(recorded);
      this.last = event.position;
      this.queue.push({ kind: 'event', event });
    } catch (error) {
      this.fail(error);
      return;
    }
    if (!this.paused && this.queue.length >= HIGH_WATER) {
      this.paused = true;
      this.subscription.pause();
    }
  }

  private fail(error: unknown): void {
    this.failed = true;
    this.queue.fail(error);
  }
}
