import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempLog, userContext, userMessages } from '../../test/support/log-fixtures.js';
import { InvalidEventError } from './catalog/event-validator.js';
import type { EventLog } from './event-log.js';
import type { EventData } from './store/types.js';
import type { SqliteEventStore } from './store/sqlite/sqlite-event-store.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('EventLog', () => {
  let env: ReturnType<typeof tempLog>;
  let log: EventLog;
  let store: SqliteEventStore;
  beforeEach(() => {
    env = tempLog();
    log = env.log;
    store = env.store;
  });
  afterEach(() => env.cleanup());

  it('stamps the schema version and time, and keeps the caller’s context', async () => {
    await log.append('session-s1', userMessages(1), { ...userContext, signerId: 'z6MkSigner' });
    const [event] = await collect(store.readStream('session-s1'));
    expect(event!.metadata).toMatchObject({
      v: 2,
      actor: 'user',
      accountId: 'z6MkAccount',
      signerId: 'z6MkSigner',
      causationId: 'bafy-action',
      correlationId: 'req-1',
      seq: 1,
    });
    expect(typeof event!.metadata.at).toBe('number');
  });

  it.each([
    ['an unknown type', { type: 'nope', data: {} }, /nope.*not in the event catalog/],
    ['a missing required field', { type: 'message', data: { role: 'user' } }, /Invalid message event: data.content is required/],
    ['a wrong enum value', { type: 'message', data: { role: 'bot', content: 'x' } }, /data.role must be one of "user", "assistant", "tool"/],
    ['an unknown field', { type: 'tool_call', data: { id: 'c1', name: 'read', extra: 1 } }, /data.extra is not an accepted property/],
    ['a nested bad value', { type: 'tool_result', data: { toolCallId: 'c', name: 'n', meta: { durationMs: -1 } } }, /data.meta.durationMs must be >= 0/],
  ])('refuses %s, naming the type and path, and writes nothing', async (_, event, message) => {
    await expect(log.append('session-s1', [{ ...event, metadata: { seq: 1 } }], userContext)).rejects.toThrow(message);
    expect(await store.headPosition()).toBeNull();
  });

  it('refuses metadata that breaks the metadata schema or misses what the type requires', async () => {
    await expect(log.append('session-s1', userMessages(1), { ...userContext, actor: 'robot' as never })).rejects.toThrow(
      /Invalid message event: metadata.actor must be one of/,
    );
    await expect(
      log.append('session-s1', [{ type: 'message', data: { role: 'user', content: 'x' } }], userContext),
    ).rejects.toThrow(/metadata.seq is required/);
    await expect(log.append('session-s1', userMessages(1), { ...userContext, accountId: '' })).rejects.toBeInstanceOf(
      InvalidEventError,
    );
  });

  it('refuses an event on a stream of the wrong category', async () => {
    await expect(log.append('agent-a1', userMessages(1), userContext)).rejects.toThrow(/belong on session-<id> streams/);
  });

  it('upcasts Log events written before actor existed: actor from the type, seq from the revision', async () => {
    // The v1 shape, written directly: no `v`, no `actor`, no `seq`.
    const old: EventData[] = [
      { type: 'message', data: { role: 'user', content: 'hi' } },
      { type: 'message', data: { role: 'assistant', content: 'hello' } },
      { type: 'tool_call', data: { id: 'c1', name: 'read', input: { address: '~/' } } },
      { type: 'tool_result', data: { toolCallId: 'c1', name: 'read', output: [] } },
      { type: 'error', data: { message: 'model unreachable' } },
    ];
    await store.append('session-old', old.map((e) => ({ ...e, id: randomUUID(), metadata: {} })));
    const events = await collect(log.readStream('session-old'));
    expect(events.every((e) => e.metadata.at === e.created)).toBe(true);
    expect(events.every((e) => e.metadata.causationId === e.id && e.metadata.correlationId === e.id)).toBe(true);
    expect(events.map((e) => [e.type, e.metadata.actor, e.metadata.seq, e.metadata.v])).toEqual([
      ['message', 'user', 1, 2],
      ['message', 'agent', 2, 2],
      ['tool_call', 'agent', 3, 2],
      ['tool_result', 'agent', 4, 2],
      ['error', 'system', 5, 2],
    ]);
    // Subscriptions upcast the same way.
    const sub = log.subscribeAll({ from: 'start' });
    for await (const m of sub) {
      if (m.kind === 'event') {
        expect(m.event.metadata.actor).toBe('user');
        break;
      }
    }
    await sub.close();
  });

  it.each([0, 1.5, '2', 3])('refuses to read an event whose schema version is %o, naming it', async (v) => {
    await store.append('session-bad', [{ type: 'message', data: { role: 'user', content: 'x' }, metadata: { v } }]);
    await expect(collect(log.readStream('session-bad'))).rejects.toThrow(
      new RegExp(`message event .* \\(session-bad@0\\) has schema version ${JSON.stringify(JSON.stringify(v)).slice(1, -1).replace('.', '\\.')}; this server reads versions 1 to 2`),
    );
  });

  it('keeps an explicit actor on old events (a system notice written before versions)', async () => {
    await store.append('session-x', [{ type: 'message', data: { role: 'assistant', content: 'n' }, metadata: { actor: 'system' } }]);
    const [event] = await collect(log.readAll());
    expect(event!.metadata.actor).toBe('system');
  });
});
