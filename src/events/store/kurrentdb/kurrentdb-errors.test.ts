import { Transform, type TransformCallback } from 'node:stream';
import {
  DeadlineExceededError as ClientDeadlineExceededError,
  EventStoreDBClient,
  MaxAppendSizeExceededError as ClientMaxAppendSizeExceededError,
  StreamDeletedError as ClientStreamDeletedError,
  StreamNotFoundError as ClientStreamNotFoundError,
  UnavailableError as ClientUnavailableError,
  WrongExpectedVersionError as ClientWrongExpectedVersionError,
  type RecordedEvent as ClientRecordedEvent,
} from '@eventstore/db-client';
import { describe, expect, it, vi } from 'vitest';
import {
  DuplicateEventIdError,
  EventStoreError,
  InvalidAppendError,
  StoreUnavailableError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors.js';
import { position } from '../position.js';
import type { SubscriptionMessage } from '../types.js';
import { exactTypesRegex, fromKurrentMetadata, toKurrentMetadata, toRecordedEvent } from './convert.js';
import { describeServer, mapKurrentError } from './errors.js';
import { KurrentDbEventStore } from './kurrentdb-event-store.js';
import { KurrentSubscription, type ClientSubscription } from './subscription.js';

const server = 'esdb://kurrent.test:2113';
/** Nothing listens on port 1: every call fails fast with gRPC UNAVAILABLE. */
const UNREACHABLE = 'esdb://127.0.0.1:1?tls=false&defaultDeadline=2000';

function clientEvent(overrides: Partial<Record<string, unknown>> = {}): ClientRecordedEvent {
  return {
    streamId: 'order-1',
    id: '6F9619FF-8B86-D011-B42D-00C04FC964FF',
    isJson: true,
    revision: 3n,
    type: 'OrderPlaced',
    created: new Date(1_700_000_000_123),
    data: { total: 12, lines: [1, 'two', null] },
    metadata: { actor: 'user' },
    position: { commit: 1000n, prepare: 990n },
    ...overrides,
  } as unknown as ClientRecordedEvent;
}

describe('KurrentDB error mapping', () => {
  it('maps a raw gRPC UNAVAILABLE error (code 14) to StoreUnavailableError naming the server', () => {
    const raw = { code: 14, details: 'No connection established' };
    const mapped = mapKurrentError(raw, { server });
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as Error).message).toContain(server);
    expect((mapped as Error).message).toContain('No connection established');
    expect((mapped as Error).cause).toBe(raw);
  });

  it("maps the client's UnavailableError and DeadlineExceededError to StoreUnavailableError", () => {
    const unavailable = [
      new ClientUnavailableError(undefined, 'down'),
      new ClientDeadlineExceededError(undefined, 'slow'),
      { code: 4, details: 'Deadline exceeded' },
    ];
    for (const error of unavailable) expect(mapKurrentError(error, { server })).toBeInstanceOf(StoreUnavailableError);
  });

  it('maps network failures and failed cluster discovery to StoreUnavailableError', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(mapKurrentError(refused, { server })).toBeInstanceOf(StoreUnavailableError);
    expect(mapKurrentError(new Error('Failed to discover after 10 attempts.'), { server })).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('leaves a client-side cancellation and unknown errors unchanged', () => {
    const cancelled = Object.assign(new Error('1 CANCELLED'), { code: 1, details: 'Cancelled on client' });
    expect(mapKurrentError(cancelled, { server })).toBe(cancelled);
    const bug = new TypeError('boom');
    expect(mapKurrentError(bug, { server })).toBe(bug);
  });

  it("maps the client's WrongExpectedVersionError with stream, the caller's expected and the actual revision", () => {
    const client = new ClientWrongExpectedVersionError(undefined, { streamName: 'order-1', expected: 2n, current: 5n });
    const mapped = mapKurrentError(client, { server, stream: 'order-1', expected: 2n, firstEventId: 'x' });
    expect(mapped).toBeInstanceOf(WrongExpectedVersionError);
    expect(mapped).toMatchObject({ stream: 'order-1', expected: 2n, actual: 5n });

    const missing = new ClientWrongExpectedVersionError(undefined, {
      streamName: 'order-2',
      expected: 'stream_exists',
      current: 'no_stream',
    });
    const context = { server, stream: 'order-2', expected: 'exists' as const, firstEventId: 'x' };
    const mappedMissing = mapKurrentError(missing, context);
    expect(mappedMissing).toBeInstanceOf(WrongExpectedVersionError);
    expect(mappedMissing).toMatchObject({ stream: 'order-2', expected: 'exists', actual: 'no_stream' });
  });

  it('names the metadata stream in a wrong expected version on stream metadata', () => {
    const client = new ClientWrongExpectedVersionError(undefined, {
      streamName: '$$order-1',
      expected: 'no_stream',
      current: 0n,
    });
    const mapped = mapKurrentError(client, { server, stream: '$$order-1', expected: 'no_stream' });
    expect(mapped).toMatchObject({ name: 'WrongExpectedVersionError', stream: '$$order-1', actual: 0n });
  });

  it('reads a wrong expected version on an `any` append as reused event ids (KurrentDB corrupted idempotency)', () => {
    const client = new ClientWrongExpectedVersionError(undefined, {
      streamName: 'order-1',
      expected: 'any',
      current: 1n,
    });
    const id = '6f9619ff-8b86-d011-b42d-00c04fc964ff';
    const mapped = mapKurrentError(client, { server, stream: 'order-1', expected: 'any', firstEventId: id });
    expect(mapped).toBeInstanceOf(DuplicateEventIdError);
    expect(mapped).toMatchObject({ stream: 'order-1', eventId: id });
  });

  it('maps stream deleted and not found, naming the stream a metastream belongs to', () => {
    const deleted = mapKurrentError(ClientStreamDeletedError.fromStreamName('$$order-1'), {
      server,
      stream: '$$order-1',
    });
    expect(deleted).toBeInstanceOf(StreamDeletedError);
    expect(deleted).toMatchObject({ stream: 'order-1' });
    const notFound = mapKurrentError(new ClientStreamNotFoundError(undefined, 'order-2'), { server });
    expect(notFound).toBeInstanceOf(StreamNotFoundError);
    expect(notFound).toMatchObject({ stream: 'order-2' });
  });

  it("maps the server's maximum append size refusal to InvalidAppendError", () => {
    const mapped = mapKurrentError(ClientMaxAppendSizeExceededError.fromMaxAppendSize(512), { server, stream: 'big' });
    expect(mapped).toBeInstanceOf(InvalidAppendError);
    expect((mapped as Error).message).toContain('512');
  });

  it('keeps credentials and options out of the server name', () => {
    expect(describeServer('esdb://admin:changeit@db.example:2113?tls=false')).toBe('esdb://db.example:2113');
    expect(describeServer('esdb+discover://node1:2113,node2:2113')).toBe('esdb+discover://node1:2113,node2:2113');
  });
});

describe('KurrentDB event conversion', () => {
  it('converts a resolved event to a RecordedEvent', () => {
    expect(toRecordedEvent(clientEvent())).toEqual({
      id: '6f9619ff-8b86-d011-b42d-00c04fc964ff',
      stream: 'order-1',
      type: 'OrderPlaced',
      revision: 3n,
      position: position(1000n, 990n),
      data: { total: 12, lines: [1, 'two', null] },
      metadata: { actor: 'user' },
      created: 1_700_000_000_123,
    });
  });

  it('reads absent metadata as an empty object and keeps scalar data', () => {
    const event = toRecordedEvent(clientEvent({ metadata: undefined, data: 42 }));
    expect(event.metadata).toEqual({});
    expect(event.data).toBe(42);
  });

  it('refuses binary events, non-object metadata and events without a position', () => {
    expect(() => toRecordedEvent(clientEvent({ isJson: false, data: new Uint8Array([1]) }))).toThrow(EventStoreError);
    expect(() => toRecordedEvent(clientEvent({ metadata: new Uint8Array([1]) }))).toThrow(/metadata/);
    expect(() => toRecordedEvent(clientEvent({ position: undefined }))).toThrow(/position/);
  });

  it('writes stream metadata as KurrentDB system keys beside the custom keys, and reads it back', () => {
    const json = toKurrentMetadata({ maxCount: 3, maxAge: 60, truncateBefore: 5n, custom: { owner: 'ops' } });
    expect(json).toEqual({ owner: 'ops', $maxCount: 3, $maxAge: 60, $tb: 5 });
    expect(fromKurrentMetadata(json)).toEqual({
      maxCount: 3,
      maxAge: 60,
      truncateBefore: 5n,
      custom: { owner: 'ops' },
    });
    expect(fromKurrentMetadata({ $acl: { $r: '$all' } })).toEqual({});
  });

  it("reads KurrentDB's soft-delete marker exactly, although JSON.parse rounds it", () => {
    const softDeleted = fromKurrentMetadata(JSON.parse('{"$tb":9223372036854775807}'));
    expect(softDeleted.truncateBefore).toBe(9_223_372_036_854_775_807n);
  });

  it('refuses metadata KurrentDB could not hold as given', () => {
    expect(() => toKurrentMetadata({ custom: { $acl: 'x' } })).toThrow(InvalidAppendError);
    expect(() => toKurrentMetadata({ truncateBefore: 2n ** 60n })).toThrow(InvalidAppendError);
  });

  it('builds an exact, escaped event type regex for the server filter', () => {
    const regex = exactTypesRegex(['Order.Placed', 'a+b', 'x|y']);
    expect(regex).toBe('^(?:Order\\.Placed|a\\+b|x\\|y)$');
    const js = new RegExp(regex);
    expect(js.test('Order.Placed')).toBe(true);
    expect(js.test('OrderXPlaced')).toBe(false);
    expect(js.test('x|y')).toBe(true);
    expect(js.test('x')).toBe(false);
  });
});

/** Stands in for the client's Subscription: it emits `caughtUp` while transforming, as the client does. */
class FakeSubscription extends Transform {
  unsubscribed = false;
  constructor() {
    super({ objectMode: true });
  }
  override _transform(
    message: { caughtUp?: true; event?: ClientRecordedEvent },
    _: string,
    next: TransformCallback,
  ): void {
    if (message.caughtUp) {
      this.emit('caughtUp');
      next();
      return;
    }
    next(null, { event: message.event });
  }
  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
    this.end();
  }
}

async function take(iterator: AsyncIterator<SubscriptionMessage>, count: number): Promise<SubscriptionMessage[]> {
  const out: SubscriptionMessage[] = [];
  while (out.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('KurrentDB subscription bridge', () => {
  const at = (n: bigint, overrides: Partial<Record<string, unknown>> = {}) =>
    clientEvent({ revision: n, position: { commit: n * 100n, prepare: n * 100n }, ...overrides });

  it('keeps the caught-up signal after the events the client still buffered, with the last position seen', async () => {
    const fake = new FakeSubscription();
    let closed = false;
    const source = new KurrentSubscription(
      fake as unknown as ClientSubscription,
      { match: (e) => e.type !== 'Unwanted', start: null, context: { server } },
      () => (closed = true),
    );
    // Held back, as a consumer slower than the server would hold it: the events wait in the buffer.
    fake.pause();
    fake.write({ event: at(1n) });
    fake.write({ event: at(2n, { streamId: '$stats-1', type: '$statsCollected' }) });
    fake.write({ event: at(3n) });
    fake.write({ event: at(4n, { type: 'Unwanted' }) });
    fake.write({ caughtUp: true });
    fake.write({ event: at(5n) });
    fake.resume();
    const iterator = source.queue[Symbol.asyncIterator]();
    const messages = await take(iterator, 4);
    const described = messages.map((m) =>
      m.kind === 'event' ? `event ${m.event.revision}` : `caughtUp ${m.position?.commit}`,
    );
    expect(described).toEqual(['event 1', 'event 3', 'caughtUp 400', 'event 5']);
    await source.queue.close();
    expect(fake.unsubscribed).toBe(true);
    expect(closed).toBe(true);
  });

  it('reports the exclusive start as the caught-up position before any event, and fails on client errors', async () => {
    const fake = new FakeSubscription();
    const start = position(70n, 70n);
    const spec = { match: null, start, context: { server } };
    const source = new KurrentSubscription(fake as unknown as ClientSubscription, spec, () => {});
    fake.write({ caughtUp: true });
    const iterator = source.queue[Symbol.asyncIterator]();
    expect(await take(iterator, 1)).toEqual([{ kind: 'caughtUp', position: start }]);
    fake.emit('error', new ClientUnavailableError(undefined, 'gone'));
    await expect(iterator.next()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('KurrentDbEventStore without a server', () => {
  it('refuses invalid input with InvalidAppendError before any network call', async () => {
    const client = EventStoreDBClient.connectionString(UNREACHABLE);
    const append = vi.spyOn(client, 'appendToStream');
    const store = new KurrentDbEventStore(client, describeServer(UNREACHABLE));
    await expect(store.append('', [{ type: 'T', data: {} }])).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.append('order-1', [])).rejects.toBeInstanceOf(InvalidAppendError);
    const badExpected = { expected: 'stream_exists' as never };
    await expect(store.append('order-1', [{ type: 'T', data: {} }], badExpected)).rejects.toBeInstanceOf(
      InvalidAppendError,
    );
    const badCustom = { custom: { $acl: 'x' } };
    await expect(store.setStreamMetadata('order-1', badCustom)).rejects.toBeInstanceOf(InvalidAppendError);
    expect(append).not.toHaveBeenCalled();
    await store.close();
  });

  it('rejects an append with StoreUnavailableError naming the server within seconds', async () => {
    const store = KurrentDbEventStore.fromConnectionString(UNREACHABLE);
    const started = Date.now();
    const error = await store.append('order-1', [{ type: 'T', data: {} }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain('esdb://127.0.0.1:1');
    expect(Date.now() - started).toBeLessThan(5_000);
    await store.close();
  });

  it('rejects reads and subscriptions with StoreUnavailableError', async () => {
    const store = KurrentDbEventStore.fromConnectionString(UNREACHABLE);
    const read = async () => {
      for await (const _ of store.readStream('order-1')) return;
    };
    await expect(read()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
    const sub = store.subscribeAll({ from: 'start' });
    await expect(sub[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.close();
  });

  it('refuses every call once closed', async () => {
    const store = KurrentDbEventStore.fromConnectionString(UNREACHABLE);
    await store.close();
    await expect(store.append('order-1', [{ type: 'T', data: {} }])).rejects.toThrow(/closed/);
    expect(() => store.subscribeAll()).toThrow(StoreUnavailableError);
  });
});
