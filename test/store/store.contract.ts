/**
 * The one contract every event store adapter passes. Adapter test files call
 * describeStoreContract with a factory; streams are named under `streamPrefix` so one server can be
 * shared between tests.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DuplicateEventIdError,
  InvalidAppendError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../../src/events/store/errors.js';
import { comparePositions, parsePosition, serializePosition } from '../../src/events/store/position.js';
import type { EventData, EventStore, ExpectedRevision } from '../../src/events/store/types.js';
import { MAX_APPEND_BYTES } from '../../src/events/store/validation.js';
import { collect, countEvents, delay, events, eventsOf, readUntil, untilCaughtUp } from './helpers.js';

export interface StoreUnderTest {
  store: EventStore;
  /** Unique per open: name every stream under it. */
  streamPrefix: string;
  cleanup(): Promise<void>;
}

export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`event store contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: EventStore;
    let s: (suffix: string) => string;

    beforeEach(async () => {
      sut = await open();
      store = sut.store;
      s = (suffix) => `${sut.streamPrefix}${suffix}`;
    });
    afterEach(async () => {
      await sut.cleanup();
    });

    const mine = () => ({ streamPrefixes: [sut.streamPrefix] });

    describe('append and expected revisions', () => {
      it('appends to a new stream and returns the next expected revision and a position', async () => {
        const first = await store.append(s('a'), events(3), { expected: 'no_stream' });
        expect(first.nextExpectedRevision).toBe(2n);
        const second = await store.append(s('a'), events(1), { expected: 2n });
        expect(second.nextExpectedRevision).toBe(3n);
        expect(comparePositions(first.position, second.position)).toBe(-1);
        const read = await collect(store.readStream(s('a')));
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
        expect(read.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 0]);
        expect(serializePosition(read[3]!.position)).toBe(serializePosition(second.position));
      });

      it('enforces no_stream, exists and exact revisions, naming stream, expected and actual', async () => {
        await store.append(s('b'), events(2));
        const cases: [string, ExpectedRevision, bigint | 'no_stream'][] = [
          [s('b'), 'no_stream', 1n],
          [s('b'), 0n, 1n],
          [s('b'), 5n, 1n],
          [s('missing'), 'exists', 'no_stream'],
          [s('missing'), 0n, 'no_stream'],
        ];
        for (const [stream, expected, actual] of cases) {
          const error = await store.append(stream, events(1), { expected }).catch((e: unknown) => e);
          expect(error, `${stream} expected ${String(expected)}`).toBeInstanceOf(WrongExpectedVersionError);
          const wev = error as WrongExpectedVersionError;
          expect(wev.stream).toBe(stream);
          expect(wev.expected).toBe(expected);
          expect(wev.actual).toBe(actual);
          expect(wev.message).toContain(stream);
        }
        expect((await collect(store.readStream(s('b')))).length).toBe(2);
        await expect(collect(store.readStream(s('missing')))).rejects.toBeInstanceOf(StreamNotFoundError);
        expect((await store.append(s('b'), events(1), { expected: 'exists' })).nextExpectedRevision).toBe(2n);
        expect((await store.append(s('b'), events(1), { expected: 'any' })).nextExpectedRevision).toBe(3n);
      });

      it('treats a retried append with the same event ids as already done', async () => {
        const batch = events(3);
        const first = await store.append(s('idem'), batch, { expected: 'no_stream' });
        const retry = await store.append(s('idem'), batch, { expected: 'no_stream' });
        expect(retry.nextExpectedRevision).toBe(first.nextExpectedRevision);
        expect(serializePosition(retry.position)).toBe(serializePosition(first.position));
        expect((await collect(store.readStream(s('idem')))).length).toBe(3);
      });

      it('refuses an append that reuses some ids of an earlier, different append', async () => {
        const batch = events(2);
        await store.append(s('dup'), batch);
        const mixed: EventData[] = [batch[1]!, ...events(1)];
        await expect(store.append(s('dup'), mixed)).rejects.toBeInstanceOf(DuplicateEventIdError);
        expect((await collect(store.readStream(s('dup')))).length).toBe(2);
      });

      it('lets exactly one of N concurrent writers win each revision', async () => {
        const writers = 8;
        const rounds = 10;
        await store.append(s('race'), events(1), { expected: 'no_stream' });
        for (let round = 0; round < rounds; round++) {
          const expected = BigInt(round);
          const results = await Promise.allSettled(
            Array.from({ length: writers }, () => store.append(s('race'), events(1), { expected })),
          );
          const won = results.filter((r) => r.status === 'fulfilled');
          const lost = results.filter((r) => r.status === 'rejected');
          expect(won.length).toBe(1);
          for (const r of lost) {
            const reason = (r as PromiseRejectedResult).reason as WrongExpectedVersionError;
            expect(reason).toBeInstanceOf(WrongExpectedVersionError);
            expect(reason.actual).toBe(expected + 1n);
          }
        }
        const all = await collect(store.readStream(s('race')));
        expect(all.map((e) => e.revision)).toEqual(Array.from({ length: rounds + 1 }, (_, i) => BigInt(i)));
      });
    });

    describe('reading', () => {
      it('reads a stream forwards and backwards, from a revision, with maxCount', async () => {
        await store.append(s('r'), events(10));
        const nums = async (opts: Parameters<EventStore['readStream']>[1]) =>
          (await collect(store.readStream(s('r'), opts))).map((e) => Number(e.revision));
        expect(await nums({})).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(await nums({ from: 4n, maxCount: 3 })).toEqual([4, 5, 6]);
        expect(await nums({ direction: 'backwards', maxCount: 3 })).toEqual([9, 8, 7]);
        expect(await nums({ direction: 'backwards', from: 4n })).toEqual([4, 3, 2, 1, 0]);
        expect(await nums({ from: 'end' })).toEqual([]);
        expect(await nums({ direction: 'backwards', from: 'start' })).toEqual([]);
      });

      it('reads $all from an inclusive, serializable position with prefix and type filters', async () => {
        await store.append(s('x-1'), events(2, 'Alpha'));
        await store.append(s('y-1'), events(2, 'Beta'));
        await store.append(s('x-2'), events(2, 'Beta'));
        const all = await collect(store.readAll({ filter: mine() }));
        expect(all.map((e) => e.stream)).toEqual([s('x-1'), s('x-1'), s('y-1'), s('y-1'), s('x-2'), s('x-2')]);
        for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1]!.position, all[i]!.position)).toBe(-1);

        const resumeAt = parsePosition(serializePosition(all[2]!.position));
        const tail = await collect(store.readAll({ from: resumeAt, filter: mine() }));
        expect(tail.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));

        const xs = await collect(store.readAll({ filter: { streamPrefixes: [s('x-')] } }));
        expect(xs.map((e) => e.stream)).toEqual([s('x-1'), s('x-1'), s('x-2'), s('x-2')]);
        const betas = await collect(store.readAll({ filter: { ...mine(), eventTypes: ['Beta'] } }));
        expect(betas.map((e) => e.stream)).toEqual([s('y-1'), s('y-1'), s('x-2'), s('x-2')]);
        const back = await collect(store.readAll({ direction: 'backwards', maxCount: 2, filter: mine() }));
        expect(back.map((e) => e.id)).toEqual([all[5]!.id, all[4]!.id]);
        const backFrom = await collect(store.readAll({ direction: 'backwards', from: all[1]!.position, filter: mine() }));
        expect(backFrom.map((e) => e.id)).toEqual([all[1]!.id, all[0]!.id]);
      });

      it('records id, type, data, metadata and creation time as given', async () => {
        const id = randomUUID();
        const before = Date.now();
        await store.append(s('rec'), [
          { id, type: 'Shaped', data: { nested: { list: [1, 'two', null, true] } }, metadata: { actor: 'user' } },
        ]);
        const [event] = await collect(store.readStream(s('rec')));
        expect(event).toMatchObject({ id, type: 'Shaped', stream: s('rec'), revision: 0n });
        expect(event!.data).toEqual({ nested: { list: [1, 'two', null, true] } });
        expect(event!.metadata).toMatchObject({ actor: 'user' });
        expect(event!.created).toBeGreaterThanOrEqual(before - 1000);
        expect(await store.headPosition()).not.toBeNull();
      });
    });

    describe('subscriptions', () => {
      it('subscribeAll catches up, signals caught up, then goes live — exclusive of its start', async () => {
        await store.append(s('sub-a'), events(3));
        const existing = await collect(store.readAll({ filter: mine() }));
        const sub = store.subscribeAll({ from: existing[0]!.position, filter: mine() });
        const caught = await readUntil(sub, untilCaughtUp);
        expect(eventsOf(caught).map((e) => e.id)).toEqual(existing.slice(1).map((e) => e.id));
        await store.append(s('sub-a'), events(2));
        const live = await readUntil(sub, countEvents(2));
        expect(eventsOf(live).map((e) => e.revision)).toEqual([3n, 4n]);
        await sub.close();
      });

      it('resumes from a stored checkpoint without repeating or skipping', async () => {
        await store.append(s('ck'), events(5));
        const first = store.subscribeAll({ from: 'start', filter: mine() });
        const seen = eventsOf(await readUntil(first, countEvents(3)));
        await first.close();
        const checkpoint = serializePosition(seen[2]!.position);
        await store.append(s('ck'), events(2));
        const second = store.subscribeAll({ from: parsePosition(checkpoint), filter: mine() });
        const rest = eventsOf(await readUntil(second, countEvents(4)));
        expect(rest.map((e) => e.revision)).toEqual([3n, 4n, 5n, 6n]);
        await second.close();
      });

      it('subscribeAll from end sees only new events', async () => {
        await store.append(s('end'), events(2));
        const sub = store.subscribeAll({ from: 'end', filter: mine() });
        await readUntil(sub, untilCaughtUp);
        await store.append(s('end'), events(1));
        const live = eventsOf(await readUntil(sub, countEvents(1)));
        expect(live.map((e) => e.revision)).toEqual([2n]);
        await sub.close();
      });

      it('subscribeStream catches up from a revision (exclusive) and follows only its stream', async () => {
        await store.append(s('ss'), events(4));
        await store.append(s('other'), events(2));
        const sub = store.subscribeStream(s('ss'), { from: 1n });
        const caught = await readUntil(sub, untilCaughtUp);
        expect(eventsOf(caught).map((e) => e.revision)).toEqual([2n, 3n]);
        await store.append(s('other'), events(1));
        await store.append(s('ss'), events(1));
        const live = eventsOf(await readUntil(sub, countEvents(1)));
        expect(live.map((e) => [e.stream, e.revision])).toEqual([[s('ss'), 4n]]);
        await sub.close();
      });

      it('applies type filters to live events', async () => {
        const sub = store.subscribeAll({ from: 'end', filter: { ...mine(), eventTypes: ['Wanted'] } });
        await readUntil(sub, untilCaughtUp);
        await store.append(s('f'), [...events(2, 'Unwanted'), ...events(1, 'Wanted')]);
        const live = eventsOf(await readUntil(sub, countEvents(1)));
        expect(live.map((e) => e.type)).toEqual(['Wanted']);
        await sub.close();
      });

      it('delivers every event exactly once and in order while appends race the switch to live', async () => {
        const writers = 4;
        const perWriter = 150;
        await store.append(s('pre'), events(200));
        const sub = store.subscribeAll({ from: 'start', filter: mine() });
        const appending = Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            for (let i = 0; i < perWriter; i += 5) await store.append(s(`race-${w}`), events(5, 'Raced', i));
          }),
        );
        const total = 200 + writers * perWriter;
        const reading = readUntil(sub, countEvents(total), 30_000);
        await appending;
        const got = eventsOf(await reading);
        await sub.close();
        const expected = await collect(store.readAll({ filter: mine() }));
        expect(got.length).toBe(total);
        expect(got.map((e) => e.id)).toEqual(expected.map((e) => e.id));
      });
    });

    describe('stream metadata, soft delete and tombstone', () => {
      it('hides events beyond maxCount and before truncateBefore', async () => {
        await store.append(s('m'), events(10));
        await store.setStreamMetadata(s('m'), { maxCount: 3 });
        expect(await store.getStreamMetadata(s('m'))).toMatchObject({ maxCount: 3 });
        let read = await collect(store.readStream(s('m')));
        expect(read.map((e) => e.revision)).toEqual([7n, 8n, 9n]);
        await store.setStreamMetadata(s('m'), { truncateBefore: 5n });
        read = await collect(store.readStream(s('m')));
        expect(read.map((e) => e.revision)).toEqual([5n, 6n, 7n, 8n, 9n]);
        const backwards = await collect(store.readStream(s('m'), { direction: 'backwards' }));
        expect(backwards.map((e) => e.revision)).toEqual([9n, 8n, 7n, 6n, 5n]);
      });

      it('hides events older than maxAge', async () => {
        await store.append(s('age'), events(2));
        await store.setStreamMetadata(s('age'), { maxAge: 1 });
        await delay(2100);
        await store.append(s('age'), events(1));
        const read = await collect(store.readStream(s('age')));
        expect(read.map((e) => e.revision)).toEqual([2n]);
      });

      it('checks the expected revision of the metadata itself', async () => {
        await store.append(s('mv'), events(1));
        const first = await store.setStreamMetadata(s('mv'), { maxCount: 5 }, { expected: 'no_stream' });
        await expect(store.setStreamMetadata(s('mv'), { maxCount: 6 }, { expected: 'no_stream' })).rejects.toBeInstanceOf(
          WrongExpectedVersionError,
        );
        await store.setStreamMetadata(s('mv'), { maxCount: 6 }, { expected: first.nextExpectedRevision });
        expect((await store.getStreamMetadata(s('mv'))).maxCount).toBe(6);
      });

      it('soft delete hides the stream; a later append reopens it with revisions continuing', async () => {
        await store.append(s('soft'), events(3));
        await store.deleteStream(s('soft'), { expected: 2n });
        await expect(collect(store.readStream(s('soft')))).rejects.toBeInstanceOf(StreamNotFoundError);
        const reopened = await store.append(s('soft'), events(2), { expected: 'any' });
        expect(reopened.nextExpectedRevision).toBe(4n);
        const read = await collect(store.readStream(s('soft')));
        expect(read.map((e) => e.revision)).toEqual([3n, 4n]);
      });

      it('refuses a delete at the wrong expected revision', async () => {
        await store.append(s('del'), events(2));
        await expect(store.deleteStream(s('del'), { expected: 0n })).rejects.toBeInstanceOf(WrongExpectedVersionError);
        expect((await collect(store.readStream(s('del')))).length).toBe(2);
      });

      it('tombstone makes a stream unreadable and unwritable forever', async () => {
        await store.append(s('tomb'), events(2));
        await store.tombstoneStream(s('tomb'));
        await expect(collect(store.readStream(s('tomb')))).rejects.toBeInstanceOf(StreamDeletedError);
        for (const expected of ['any', 'no_stream'] as const) {
          await expect(store.append(s('tomb'), events(1), { expected })).rejects.toBeInstanceOf(StreamDeletedError);
        }
        await expect(store.deleteStream(s('tomb'))).rejects.toBeInstanceOf(StreamDeletedError);
      });
    });

    describe('bad input is refused and writes nothing', () => {
      const bad: [string, () => [string, EventData[], ExpectedRevision | undefined]][] = [
        ['an empty stream name', () => ['', events(1), undefined]],
        ['a stream name with spaces', () => [s('has space'), events(1), undefined]],
        ['a system stream name', () => ['$system', events(1), undefined]],
        ['no events', () => [s('bad'), [], undefined]],
        ['undefined in data', () => [s('bad'), [{ type: 'T', data: { a: undefined } as never }], undefined]],
        ['a function in data', () => [s('bad'), [{ type: 'T', data: { f: (() => 1) as never } }], undefined]],
        ['a bigint in data', () => [s('bad'), [{ type: 'T', data: { n: 1n as never } }], undefined]],
        ['NaN in data', () => [s('bad'), [{ type: 'T', data: { n: Number.NaN } }], undefined]],
        ['a Date in data', () => [s('bad'), [{ type: 'T', data: { d: new Date() as never } }], undefined]],
        ['an empty type', () => [s('bad'), [{ type: '', data: {} }], undefined]],
        ['a non-uuid id', () => [s('bad'), [{ id: 'nope', type: 'T', data: {} }], undefined]],
        ['metadata that is an array', () => [s('bad'), [{ type: 'T', data: {}, metadata: [] as never }], undefined]],
        [
          'an oversized event',
          () => [s('bad'), [{ type: 'T', data: { blob: 'x'.repeat(MAX_APPEND_BYTES) } }], undefined],
        ],
        ['a numeric expected revision', () => [s('bad'), events(1), 3 as never]],
        ['a negative expected revision', () => [s('bad'), events(1), -1n]],
        ['an unknown expected revision word', () => [s('bad'), events(1), 'stream_exists' as never]],
      ];
      for (const [label, make] of bad) {
        it(`refuses ${label}`, async () => {
          const [stream, batch, expected] = make();
          const error = await store
            .append(stream, batch, expected === undefined ? {} : { expected })
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidAppendError);
          expect((error as Error).message.length).toBeGreaterThan(10);
          expect(await collect(store.readAll({ filter: mine() }))).toEqual([]);
        });
      }

      it('refuses a circular data structure', async () => {
        const data: Record<string, unknown> = {};
        data.self = data;
        await expect(store.append(s('bad'), [{ type: 'T', data: data as never }])).rejects.toThrow(/circular/);
      });

      it('refuses unknown filter and metadata keys', async () => {
        await expect(collect(store.readAll({ filter: { streams: ['x'] } as never }))).rejects.toThrow(/streamPrefixes/);
        await expect(store.setStreamMetadata(s('m'), { maxcount: 3 } as never)).rejects.toThrow(/maxCount/);
      });
    });
  });
}
