/**
 * The only way domain code touches the log: appends are checked against the event catalog and
 * stamped with their schema version; reads come back upcast to the current shapes.
 */
import { EVENT_CATALOG, type EventCatalog } from './catalog/catalog.js';
import { EventValidator, InvalidEventError } from './catalog/event-validator.js';
import type { EventContext, EventMetadata } from './catalog/metadata.js';
import { upcast, type CatalogEvent } from './catalog/upcast.js';
import type { Position } from './store/position.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  JsonObject,
  JsonValue,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeAllOptions,
  SubscribeStreamOptions,
  Subscription,
  SubscriptionMessage,
} from './store/types.js';

export interface NewEvent {
  type: string;
  data: JsonValue;
  /** Give one to make a retried append idempotent. */
  id?: string;
  /** Per-event metadata (a Log event's `seq` and `prev`), over the append's context. */
  metadata?: Partial<EventMetadata>;
}

export type LogMessage = { kind: 'event'; event: CatalogEvent } | { kind: 'caughtUp'; position: Position | null };

export interface LogSubscription extends AsyncIterable<LogMessage> {
  close(): Promise<void>;
}

export class EventLog {
  private readonly validator: EventValidator;

  constructor(
    readonly store: EventStore,
    readonly catalog: EventCatalog = EVENT_CATALOG,
  ) {
    this.validator = new EventValidator(catalog);
  }

  append(stream: string, events: readonly NewEvent[], context: EventContext, options?: AppendOptions): Promise<AppendResult> {
    try {
      const at = context.at ?? Date.now();
      const prepared = events.map((event) => {
        const definition = this.catalog.get(event.type);
        if (!definition) {
          throw new InvalidEventError(event.type, 'type', `is not in the event catalog; known: ${this.catalog.types().join(', ')}`);
        }
        if (!stream.startsWith(`${definition.category}-`)) {
          throw new InvalidEventError(
            event.type,
            'stream',
            `"${stream}" is not accepted: ${event.type} events belong on ${definition.category}-<id> streams`,
          );
        }
        const metadata = dropUndefined({ ...context, ...event.metadata, v: definition.version, at });
        this.validator.validate(event.type, event.data, metadata);
        return { type: event.type, data: event.data, metadata, ...(event.id ? { id: event.id } : {}) };
      });
      return this.store.append(stream, prepared, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async *readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<CatalogEvent> {
    for await (const event of this.store.readStream(stream, options)) yield upcast(this.catalog, event);
  }

  async *readAll(options?: ReadAllOptions): AsyncIterable<CatalogEvent> {
    for await (const event of this.store.readAll(options)) yield upcast(this.catalog, event);
  }

  subscribeAll(options?: SubscribeAllOptions): LogSubscription {
    return this.upcasting(this.store.subscribeAll(options));
  }

  subscribeStream(stream: string, options?: SubscribeStreamOptions): LogSubscription {
    return this.upcasting(this.store.subscribeStream(stream, options));
  }

  /** A plain mapping iterator rather than an async generator: one less resumption per event. */
  private upcasting(subscription: Subscription): LogSubscription {
    const catalog = this.catalog;
    const upcastMessage = (result: IteratorResult<SubscriptionMessage>): IteratorResult<LogMessage> =>
      result.done || result.value.kind === 'caughtUp'
        ? (result as IteratorResult<LogMessage>)
        : { value: { kind: 'event', event: upcast(catalog, result.value.event) }, done: false };
    return {
      close: () => subscription.close(),
      [Symbol.asyncIterator]() {
        const inner = subscription[Symbol.asyncIterator]();
        return {
          next: () => inner.next().then(upcastMessage),
          return: async () => {
            await subscription.close();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }
}

/** Metadata never stores explicit `undefined` (DESIGN: never sign or store it). */
function dropUndefined(object: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value as JsonValue;
  return out;
}
