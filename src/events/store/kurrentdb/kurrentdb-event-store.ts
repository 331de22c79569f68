/**
 * The production store: KurrentDB (EventStoreDB) through @eventstore/db-client.
 *
 * KurrentDB enforces expected revisions, idempotent retries, stream metadata and deletes itself; this
 * adapter validates input exactly as the SQLite store does, translates shapes and errors, and papers
 * over the few places where the server's answers differ from the port's (see the comments below).
 */
import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  jsonEvent,
  type AppendResult as ClientAppendResult,
  type JSONType,
  type RecordedEvent as ClientRecordedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  EventStoreError,
  StoreUnavailableError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors.js';
import { compileFilter } from '../filter.js';
import { comparePositions, type Position } from '../position.js';
import type {
  AppendOptions,
  AppendResult,
  DeleteOptions,
  EventData,
  EventStore,
  ExpectedRevision,
  JsonObject,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamMetadata,
  SubscribeAllOptions,
  SubscribeStreamOptions,
  Subscription,
} from '../types.js';
import {
  checkExpected,
  checkMaxCount,
  checkStreamMetadata,
  checkStreamName,
  prepareEvents,
} from '../validation.js';
import {
  fromKurrentMetadata,
  isSystemEvent,
  serverFilter,
  toClientExpected,
  toKurrentMetadata,
  toPosition,
  toRecordedEvent,
} from './convert.js';
import { describeServer, mapKurrentError, type ErrorContext } from './errors.js';
import { KurrentSubscription, type ClientSubscription, type SubscriptionSpec } from './subscription.js';

type ClientRead<E extends ClientRecordedEvent> = StreamingRead<{ event?: E }>;

export class KurrentDbEventStore implements EventStore {
  private closed = false;
  private readonly writes = new Set<Promise<unknown>>();
  private readonly reads = new Set<ClientRead<ClientRecordedEvent>>();
  private readonly subscriptions = new Set<Subscription>();

  /** `server` names the server in error messages; it must not carry credentials. */
  constructor(
    private readonly client: EventStoreDBClient,
    readonly server: string,
  ) {}

  /** `esdb://host:2113?tls=false`; `defaultDeadline=<ms>` bounds each call. */
  static fromConnectionString(url: string): KurrentDbEventStore {
    return new KurrentDbEventStore(EventStoreDBClient.connectionString(url), describeServer(url));
  }

  async append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen();
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    const prepared = prepareEvents(stream, events, randomUUID);
    const payload = prepared.map((event, i) =>
      jsonEvent({
        id: event.id,
        type: event.type,
        // Checked to be JSON by prepareEvents; the client serializes any JSON value, though its type
        // names only objects, arrays and strings.
        data: events[i]!.data as JSONType,
        metadata: events[i]!.metadata ?? {},
      }),
    );
    const context = { server: this.server, stream, expected, firstEventId: prepared[0]!.id };
    return this.write(async () => {
      let result: ClientAppendResult;
      try {
        result = await this.client.appendToStream(stream, payload, { expectedRevision: toClientExpected(expected) });
      } catch (error) {
        throw await this.refineDeleted(mapKurrentError(error, context), stream, expected);
      }
      return this.acknowledged(stream, result);
    });
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    checkStreamName(stream);
    checkMaxCount(options.maxCount);
    const backwards = options.direction === 'backwards';
    let cursor = options.from ?? (backwards ? 'end' : 'start');
    // Backwards from the start is empty, but a missing or tombstoned stream must still throw: read one
    // event to find out, and yield nothing. The same goes for maxCount 0.
    let remaining = backwards && cursor === 'start' ? 0 : (options.maxCount ?? Infinity);
    const context = { server: this.server, stream };
    for (;;) {
      const count = remaining === Infinity ? undefined : Math.max(remaining, 1);
      const read = this.client.readStream(stream, {
        fromRevision: cursor === 'start' ? START : cursor === 'end' ? END : cursor,
        direction: backwards ? BACKWARDS : FORWARDS,
        ...(count === undefined ? {} : { maxCount: count }),
      });
      let received = 0;
      let lastRevision = 0n;
      for await (const event of this.events(read, context)) {
        received += 1;
        lastRevision = event.revision;
        if (remaining > 0 && !isSystemEvent(event)) {
          yield toRecordedEvent(event);
          remaining -= 1;
        }
      }
      if (count === undefined || received < count || remaining === 0) return;
      // Skipped system events used up part of the server's count: read on past them.
      if (backwards && lastRevision === 0n) return;
      cursor = backwards ? lastRevision - 1n : lastRevision + 1n;
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    checkMaxCount(options.maxCount);
    const match = compileFilter(options.filter);
    const backwards = options.direction === 'backwards';
    const from = options.from ?? (backwards ? 'end' : 'start');
    let remaining = options.maxCount ?? Infinity;
    if (remaining === 0 || from === (backwards ? 'start' : 'end')) return;
    const keep = (event: ClientRecordedEvent) =>
      !isSystemEvent(event) && (!match || match({ stream: event.streamId, type: event.type }));
    const context = { server: this.server };
    if (backwards && typeof from === 'object') {
      // KurrentDB reads $all backwards from just before `from`; the port's `from` is inclusive.
      for await (const event of this.events(this.client.readAll({ fromPosition: from, maxCount: 1 }), context)) {
        if (comparePositions(toPosition(event.position), from) === 0 && keep(event)) {
          yield toRecordedEvent(event);
          remaining -= 1;
        }
      }
      if (remaining === 0) return;
    }
    // The client cannot filter a read of $all on the server: read on and filter here until maxCount.
    const read = this.client.readAll({
      fromPosition: from === 'start' ? START : from === 'end' ? END : from,
      direction: backwards ? BACKWARDS : FORWARDS,
    });
    for await (const event of this.events(read, context)) {
      if (!keep(event)) continue;
      yield toRecordedEvent(event);
      remaining -= 1;
      if (remaining === 0) return;
    }
  }

  subscribeAll(options: SubscribeAllOptions = {}): Subscription {
    this.assertOpen();
    const match = compileFilter(options.filter);
    const from = options.from ?? 'start';
    const subscription = this.client.subscribeToAll({
      fromPosition: from === 'start' ? START : from === 'end' ? END : from,
      filter: serverFilter(options.filter),
    });
    return this.track(subscription, {
      match,
      start: typeof from === 'object' ? from : null,
      context: { server: this.server },
    });
  }

  subscribeStream(stream: string, options: SubscribeStreamOptions = {}): Subscription {
    this.assertOpen();
    checkStreamName(stream);
    const from = options.from ?? 'start';
    const subscription = this.client.subscribeToStream(stream, {
      fromRevision: from === 'start' ? START : from === 'end' ? END : from,
    });
    return this.track(subscription, { match: null, start: null, context: { server: this.server, stream } });
  }

  async getStreamMetadata(stream: string): Promise<StreamMetadata> {
    this.assertOpen();
    checkStreamName(stream);
    const metastream = `$$${stream}`;
    const read = this.client.readStream(metastream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
    try {
      for await (const event of this.events(read, { server: this.server, stream: metastream })) {
        // KurrentDB enforces a metadata event it cannot parse as no metadata at all; report it so.
        if (!event.isJson || !isJsonObject(event.data)) return {};
        return fromKurrentMetadata(event.data);
      }
      return {};
    } catch (error) {
      if (error instanceof StreamNotFoundError) return {};
      throw error;
    }
  }

  /** `expected` applies to the metadata stream `$$stream`, as in KurrentDB itself. */
  async setStreamMetadata(
    stream: string,
    metadata: StreamMetadata,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    checkStreamName(stream);
    checkStreamMetadata(metadata);
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    const event = jsonEvent({ type: '$metadata', data: toKurrentMetadata(metadata) });
    const metastream = `$$${stream}`;
    return this.write(async () => {
      let result: ClientAppendResult;
      try {
        result = await this.client.appendToStream(metastream, event, { expectedRevision: toClientExpected(expected) });
      } catch (error) {
        throw mapKurrentError(error, { server: this.server, stream: metastream, expected });
      }
      return this.acknowledged(metastream, result);
    });
  }

  async deleteStream(stream: string, options: DeleteOptions = {}): Promise<{ position: Position | null }> {
    this.assertOpen();
    checkStreamName(stream);
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    return this.write(async () => {
      // KurrentDB soft-deletes a stream that does not exist without complaint; the port refuses, as
      // SQLite does: a revision check fails first, then the missing stream.
      if ((await this.lastRevision(stream)) === 'no_stream') {
        if (expected === 'exists' || typeof expected === 'bigint') {
          throw new WrongExpectedVersionError(stream, expected, 'no_stream');
        }
        throw new StreamNotFoundError(stream);
      }
      try {
        // The stream was just seen to exist; the client has no "exists" for soft deletes.
        const result = await this.client.deleteStream(stream, {
          expectedRevision: expected === 'exists' ? ANY : expected,
        });
        return { position: result.position ? toPosition(result.position) : null };
      } catch (error) {
        throw mapKurrentError(error, { server: this.server, stream, expected });
      }
    });
  }

  async tombstoneStream(stream: string, options: DeleteOptions = {}): Promise<{ position: Position | null }> {
    this.assertOpen();
    checkStreamName(stream);
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    return this.write(async () => {
      // The client's tombstone has no "exists" either, and KurrentDB would call a soft-deleted
      // stream "deleted" where the port calls it absent.
      if (expected === 'exists' && (await this.lastRevision(stream)) === 'no_stream') {
        throw new WrongExpectedVersionError(stream, expected, 'no_stream');
      }
      try {
        const result = await this.client.tombstoneStream(stream, {
          expectedRevision: expected === 'exists' ? ANY : expected,
        });
        return { position: result.position ? toPosition(result.position) : null };
      } catch (error) {
        throw mapKurrentError(error, { server: this.server, stream, expected });
      }
    });
  }

  /** The newest event in $all that is not a system event. */
  async headPosition(): Promise<Position | null> {
    this.assertOpen();
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS });
    for await (const event of this.events(read, { server: this.server })) {
      if (!isSystemEvent(event)) return toPosition(event.position);
    }
    return null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let writes already sent get their answer before the connection goes, as the SQLite store does.
    await Promise.allSettled([...this.writes]);
    const closedError = new StoreUnavailableError(`The event store at ${this.server} is closed`);
    for (const read of this.reads) read.destroy(closedError);
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }

  private async write<T>(operation: () => Promise<T>): Promise<T> {
    const pending = operation();
    this.writes.add(pending);
    try {
      return await pending;
    } finally {
      this.writes.delete(pending);
    }
  }

  /** Yields a client read's events, mapping its errors and ending the server-side read when left early. */
  private async *events<E extends ClientRecordedEvent>(read: ClientRead<E>, context: ErrorContext): AsyncGenerator<E> {
    this.reads.add(read);
    let finished = false;
    try {
      for await (const resolved of read) {
        if (resolved.event) yield resolved.event;
      }
      finished = true;
    } catch (error) {
      finished = true;
      throw mapKurrentError(error, context);
    } finally {
      this.reads.delete(read);
      if (!finished) await read.cancel();
    }
  }

  private async acknowledged(stream: string, result: ClientAppendResult): Promise<AppendResult> {
    if (!result.success) {
      throw new EventStoreError(
        `KurrentDB at ${this.server} refused the append to "${stream}" (wrong expected version), but the ` +
          'connection string sets throwOnAppendFailure=false, which hides the details: remove that option',
      );
    }
    return { nextExpectedRevision: result.nextExpectedRevision, position: await this.appendPosition(stream, result) };
  }

  /** KurrentDB may acknowledge a retried append it had already written without a position: read it back. */
  private async appendPosition(stream: string, result: ClientAppendResult): Promise<Position> {
    if (result.position && result.position.commit >= 0n && result.position.commit < 2n ** 63n) {
      return toPosition(result.position);
    }
    const revision = result.nextExpectedRevision;
    const read = this.client.readStream(stream, { fromRevision: revision, maxCount: 1 });
    for await (const event of this.events(read, { server: this.server, stream })) {
      if (event.position) return toPosition(event.position);
    }
    throw new EventStoreError(
      `KurrentDB at ${this.server} acknowledged the append to "${stream}" without a position, and its last ` +
        `event (revision ${revision}) cannot be read back to find it`,
    );
  }

  /** The stream's last revision: `no_stream` when absent or soft-deleted, null when all its events expired. */
  private async lastRevision(stream: string): Promise<bigint | 'no_stream' | null> {
    const read = this.client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
    try {
      for await (const event of this.events(read, { server: this.server, stream })) return event.revision;
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 'no_stream';
      throw error;
    }
  }

  /**
   * KurrentDB refuses `exists` on a soft-deleted stream as "deleted"; the port reads a soft-deleted
   * stream as absent, so that is a wrong expected version. A tombstoned stream stays deleted.
   */
  private async refineDeleted(error: unknown, stream: string, expected: ExpectedRevision): Promise<unknown> {
    if (expected !== 'exists' || !(error instanceof StreamDeletedError)) return error;
    return (await this.lastRevision(stream)) === 'no_stream'
      ? new WrongExpectedVersionError(stream, expected, 'no_stream')
      : error;
  }

  private track(subscription: ClientSubscription, spec: SubscriptionSpec): Subscription {
    const source: KurrentSubscription = new KurrentSubscription(subscription, spec, () =>
      this.subscriptions.delete(source.queue),
    );
    this.subscriptions.add(source.queue);
    return source.queue;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError(`The event store at ${this.server} is closed`);
  }
}

function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}
