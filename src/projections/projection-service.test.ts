/**
 * The projection runner, given events / when / then: atomic rows + checkpoint, replay equals the
 * incremental build, version bumps rebuild beside the serving tables, read-your-writes.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempLog, userContext, userMessages } from '../../test/support/log-fixtures.js';
import { serializePosition } from '../events/store/position.js';
import type { Projection } from './projection.js';
import { ProjectionFailedError, ProjectionService, ProjectionTimeoutError } from './projection-service.js';
import { ReadModelDb } from './read-model-db.js';
import { sessionViewProjection, type SessionViewRow } from './session-view.projection.js';

const quiet = { log: () => {}, error: () => {} };

/** Counts messages per session; `version` and `shout` let tests change its definition. */
function counter(version = 1, shout = false, failOn?: string): Projection {
  return {
    name: 'message_counts',
    version,
    eventTypes: ['message'],
    tables: { counts: 'session_id TEXT PRIMARY KEY, messages INTEGER NOT NULL, last TEXT NOT NULL, last_position TEXT' },
    apply(event, tx) {
      const content = (event.data as { content: string }).content;
      if (failOn && content === failOn) throw new Error(`cannot count "${content}"`);
      const last = shout ? content.toUpperCase() : content;
      const position = event.position.commit.toString();
      // Idempotent under redelivery: an event at or before last_position was already counted.
      tx.run(
        `INSERT INTO {counts} (session_id, messages, last, last_position) VALUES (?, 1, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET messages = messages + 1, last = excluded.last, last_position = excluded.last_position
         WHERE CAST(last_position AS INTEGER) < CAST(excluded.last_position AS INTEGER)`,
        event.stream,
        last,
        position,
      );
    },
  };
}

function dump(service: ProjectionService, name: string, table: string): unknown[] {
  return service.reader(name).all(`SELECT * FROM {${table}} ORDER BY 1, 2`);
}

describe('ProjectionService', () => {
  let env: ReturnType<typeof tempLog>;
  let readModels: ReadModelDb;
  let services: ProjectionService[];

  const serve = (projections: Projection[]) => {
    const service = new ProjectionService(env.log, readModels, projections, quiet);
    services.push(service);
    service.start();
    return service;
  };

  beforeEach(() => {
    env = tempLog();
    readModels = new ReadModelDb(join(env.dir, 'readmodels.db'));
    services = [];
  });
  afterEach(async () => {
    for (const s of services) await s.stop();
    readModels.close();
    await env.cleanup();
  });

  it('read-your-writes: after waitFor, the append is visible in the read model', async () => {
    const service = serve([sessionViewProjection]);
    await env.log.append('session-a', userMessages(3), userContext);
    const { position } = await env.log.append(
      'session-a',
      [{ type: 'tool_call', data: { id: 'c1', name: 'read', input: {} }, metadata: { seq: 4 } }],
      { ...userContext, actor: 'agent', at: 1234 },
    );
    await service.waitFor(position, { eventTypes: ['tool_call'] });
    const row = service.reader('session_view').get<SessionViewRow>('SELECT * FROM {sessions} WHERE session_id = ?', 'a');
    expect(row).toMatchObject({
      account_id: 'z6MkAccount',
      last_seq: 4,
      last_type: 'tool_call',
      last_actor: 'agent',
      messages: 3,
      tool_calls: 1,
      errors: 0,
      updated_at: 1234,
      position: serializePosition(position),
    });
  });

  it('waitFor times out with a clear error when a projection is not running', async () => {
    const service = new ProjectionService(env.log, readModels, [sessionViewProjection], quiet);
    services.push(service);
    const { position } = await env.log.append('session-a', userMessages(1), userContext);
    await expect(service.waitFor(position, { timeoutMs: 50 })).rejects.toBeInstanceOf(ProjectionTimeoutError);
    await expect(service.waitFor(position, { timeoutMs: 50 })).rejects.toThrow(/still behind: session_view/);
  });

  it('a throw mid-batch commits neither rows nor checkpoint; a restart applies everything exactly once', async () => {
    await env.log.append('session-a', userMessages(5), userContext);
    await env.log.append('session-b', userMessages(1, 1, 'boom'), userContext);
    await env.log.append('session-a', userMessages(2, 6), userContext);
    const failing = new ProjectionService(env.log, readModels, [counter(1, false, 'boom 1')], quiet);
    services.push(failing);
    failing.start();
    const head = (await env.store.headPosition())!;
    await expect(failing.waitFor(head, { timeoutMs: 5000 })).rejects.toBeInstanceOf(ProjectionFailedError);
    // The whole batch rolled back: no rows, no checkpoint.
    expect(dump(failing, 'message_counts', 'counts')).toEqual([]);
    expect(readModels.generations('message_counts')[0]!.checkpoint).toBeNull();
    await failing.stop();

    const fixed = serve([counter()]);
    await fixed.waitFor(head);
    expect(dump(fixed, 'message_counts', 'counts')).toEqual([
      { session_id: 'session-a', messages: 7, last: 'hello 7', last_position: '8' },
      { session_id: 'session-b', messages: 1, last: 'boom 1', last_position: '6' },
    ]);
  });

  it('a live event that makes apply throw fails the projection (no crash) and rejects waits on it', async () => {
    const service = serve([counter(1, false, 'boom 1')]);
    const ok = await env.log.append('session-a', userMessages(1), userContext);
    await service.waitFor(ok.position);
    const boom = await env.log.append('session-b', userMessages(1, 1, 'boom'), userContext);
    await expect(service.waitFor(boom.position, { timeoutMs: 5000 })).rejects.toThrow(
      /Projection message_counts failed: .*cannot count "boom 1"/,
    );
    expect(service.status()[0]!.failure).toMatch(/cannot count/);
  });

  it('replay from zero equals the incrementally built state', async () => {
    const service = serve([sessionViewProjection, counter()]);
    for (let i = 0; i < 30; i++) {
      const { position } = await env.log.append(`session-${i % 4}`, userMessages(3, 1 + Math.floor(i / 4) * 3), userContext);
      if (i % 5 === 0) await service.waitFor(position);
    }
    await service.waitFor((await env.store.headPosition())!);
    const incremental = [dump(service, 'session_view', 'sessions'), dump(service, 'message_counts', 'counts')];
    await service.rebuild('session_view');
    await service.rebuild('message_counts');
    const replayed = [dump(service, 'session_view', 'sessions'), dump(service, 'message_counts', 'counts')];
    expect(replayed).toEqual(incremental);
    expect(readModels.generations('session_view').map((g) => [g.generation, g.state])).toEqual([[2, 'serving']]);
    // Secondary indexes of a rebuilt generation are created when it is promoted.
    const indexes = readModels.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'p_session_view_%'").all();
    expect(indexes).toContainEqual({ name: 'p_session_view_g2_sessions_by_agent' });
  });

  it('a version bump rebuilds into fresh tables while the old ones keep answering, then swaps', async () => {
    for (let i = 0; i < 40; i++) await env.log.append(`session-${i}`, userMessages(250), userContext);
    const head = (await env.store.headPosition())!;
    const v1 = serve([counter(1)]);
    await v1.waitFor(head, { timeoutMs: 20_000 });
    await v1.stop();

    const v2 = serve([counter(2, true)]);
    // Reads answer at once, from generation 1, while generation 2 is built; generation 1 is no longer
    // fed, since only version 2's code exists.
    expect(v2.status()[0]).toMatchObject({ version: 2, generation: 1, rebuilding: true, frozen: true });
    const during = v2.reader('message_counts').get<{ last: string }>('SELECT last FROM {counts} WHERE session_id = ?', 'session-0');
    expect(during?.last).toBe('hello 250');
    const swapped = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!v2.status()[0]!.rebuilding) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    // Writes during the rebuild reach whichever generation serves.
    const late = await env.log.append('session-late', userMessages(1), userContext);
    await swapped;
    await v2.waitFor(late.position);
    expect(v2.status()[0]).toMatchObject({ generation: 2, rebuilding: false });
    const after = v2.reader('message_counts').get<{ last: string }>('SELECT last FROM {counts} WHERE session_id = ?', 'session-0');
    expect(after?.last).toBe('HELLO 250');
    expect(v2.reader('message_counts').get('SELECT * FROM {counts} WHERE session_id = ?', 'session-late')).toBeTruthy();
    // The old generation's tables are gone.
    const tables = readModels.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'p_message_counts_%'").all();
    expect(tables).toEqual([{ name: 'p_message_counts_g2_counts' }]);
  });

  it('after a version change adds a column, writes wait for the new generation instead of failing on the old', async () => {
    const v1: Projection = {
      name: 'widening',
      version: 1,
      eventTypes: ['message'],
      tables: { rows: 'event_id TEXT PRIMARY KEY' },
      apply(event, tx) {
        tx.run('INSERT OR IGNORE INTO {rows} (event_id) VALUES (?)', event.id);
      },
    };
    const v2: Projection = {
      ...v1,
      version: 2,
      tables: { rows: 'event_id TEXT PRIMARY KEY, content TEXT' },
      apply(event, tx) {
        tx.run('INSERT OR IGNORE INTO {rows} (event_id, content) VALUES (?, ?)', event.id, (event.data as { content: string }).content);
      },
    };
    for (let i = 0; i < 20; i++) await env.log.append(`session-${i}`, userMessages(100), userContext);
    const first = serve([v1]);
    await first.waitFor((await env.store.headPosition())!);
    await first.stop();
    const second = serve([v2]);
    const { position } = await env.log.append('session-new', userMessages(1, 1, 'fresh'), userContext);
    await second.waitFor(position, { timeoutMs: 10_000 });
    expect(second.status()[0]).toMatchObject({ generation: 2, frozen: false, failure: null });
    expect(second.reader('widening').all('SELECT content FROM {rows} WHERE content = ?', 'fresh 1')).toEqual([{ content: 'fresh 1' }]);
  });

  it('resumes from its checkpoint after a restart without re-applying', async () => {
    const first = serve([counter()]);
    const a = await env.log.append('session-a', userMessages(3), userContext);
    await first.waitFor(a.position);
    await first.stop();
    await env.log.append('session-a', userMessages(2, 4), userContext);
    const second = serve([counter()]);
    await second.waitFor((await env.store.headPosition())!);
    expect(dump(second, 'message_counts', 'counts')).toEqual([
      { session_id: 'session-a', messages: 5, last: 'hello 5', last_position: '5' },
    ]);
  });

  it('projects upcast old events: the view sees the derived actor and seq', async () => {
    await env.store.append('session-old', [
      { id: randomUUID(), type: 'message', data: { role: 'user', content: 'hi' }, metadata: { accountId: 'z6MkOld' } },
      { id: randomUUID(), type: 'error', data: { message: 'down' }, metadata: { accountId: 'z6MkOld' } },
    ]);
    const service = serve([sessionViewProjection]);
    await service.waitFor((await env.store.headPosition())!);
    const row = service.reader('session_view').get<SessionViewRow>('SELECT * FROM {sessions}');
    expect(row).toMatchObject({ session_id: 'old', last_seq: 2, last_type: 'error', last_actor: 'system', messages: 1, errors: 1 });
    // A Log from before any metadata at all: the account is unknown, and the view still builds.
    await env.store.append('session-older', [{ id: randomUUID(), type: 'message', data: { role: 'user', content: 'hey' } }]);
    await service.waitFor((await env.store.headPosition())!);
    const older = service.reader('session_view').get<SessionViewRow>('SELECT * FROM {sessions} WHERE session_id = ?', 'older');
    expect(older).toMatchObject({ account_id: null, last_seq: 1, last_actor: 'user' });
  });

  it('a pipelined (writeOnly) rebuild interrupted midway resumes from its checkpoint on the next start', async () => {
    for (let i = 0; i < 60; i++) await env.log.append(`session-${i}`, userMessages(200), userContext);
    const head = (await env.store.headPosition())!;
    const v1 = serve([sessionViewProjection]);
    await v1.waitFor(head, { timeoutMs: 20_000 });
    await v1.stop();

    const bumped = { ...sessionViewProjection, version: sessionViewProjection.version + 1 };
    const interrupted = serve([bumped]);
    // Stop once the new generation has committed some batches but not all.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        const building = readModels.generations('session_view').find((g) => g.state === 'building');
        if (building?.checkpoint) {
          clearInterval(check);
          resolve();
        }
      }, 1);
    });
    await interrupted.stop();
    const partial = readModels.generations('session_view').find((g) => g.state === 'building')!;
    expect(partial.checkpoint!.commit < head.commit).toBe(true);

    const resumed = serve([bumped]);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (resumed.status()[0]!.generation === partial.generation) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    await resumed.waitFor(head);
    const rows = resumed.reader('session_view').all<SessionViewRow>('SELECT last_seq, messages FROM {sessions}');
    expect(rows.length).toBe(60);
    expect(rows.every((r) => r.last_seq === 200 && r.messages === 200)).toBe(true);
  });

  it('a writeOnly projection that reads its tables fails its rebuild with a clear error', async () => {
    await env.log.append('session-a', userMessages(2), userContext);
    const sneaky: Projection = {
      ...counter(),
      name: 'sneaky',
      writeOnly: true,
      apply(_, tx) {
        tx.get('SELECT * FROM {counts}');
      },
    };
    const service = serve([sneaky]);
    await expect(service.rebuild('sneaky')).rejects.toThrow(
      /Projection sneaky failed on message .*: Projection sneaky is writeOnly but read its tables \(tx.get\)/,
    );
  });

  /** Records each event's position; the table refuses position `poison`, so the writer thread fails there. */
  function positions(poison: number): Projection {
    return {
      name: 'positions',
      version: 1,
      eventTypes: ['message'],
      writeOnly: true,
      tables: { seen: `position INTEGER PRIMARY KEY CHECK (position != ${poison})` },
      apply(event, tx) {
        tx.run('INSERT INTO {seen} (position) VALUES (?) ON CONFLICT DO NOTHING', Number(event.position.commit));
      },
    };
  }

  it('a batch failing in the writer thread stops every later batch from committing past it', async () => {
    for (let i = 0; i < 60; i++) await env.log.append(`session-${i}`, userMessages(100), userContext);
    const service = new ProjectionService(env.log, readModels, [positions(4000)], quiet);
    services.push(service);
    await expect(service.rebuild('positions')).rejects.toThrow(/CHECK constraint failed/);
    const building = readModels.generations('positions').find((g) => g.state === 'building')!;
    // Batches are 2,000 events: the one ending at 4,000 failed, and nothing after it may have committed.
    expect(building.checkpoint === null || building.checkpoint.commit <= 2000n).toBe(true);
    const committed = readModels.db.prepare(`SELECT MAX(position) AS max FROM p_positions_g${building.generation}_seen`).get();
    expect(committed).toEqual({ max: building.checkpoint === null ? null : 2000 });
  });

  it('a failing rebuild neither crashes the process nor blocks read-your-writes on the healthy generation', async () => {
    // Fails only when recorded for the writer thread: the serving generation applies the same events fine.
    const fragile: Projection = {
      ...counter(),
      name: 'fragile',
      writeOnly: true,
      apply(event, tx) {
        if (event.stream === 'session-poison') void tx.db;
        counter().apply(event, tx);
      },
    };
    const service = serve([fragile]);
    await env.log.append('session-poison', userMessages(1), userContext);
    await expect(service.rebuild('fragile')).rejects.toThrow(/fragile is writeOnly/);
    expect(service.status()[0]).toMatchObject({ rebuilding: true, failure: null, rebuildFailure: expect.stringMatching(/writeOnly/) });
    const { position } = await env.log.append('session-fine', userMessages(1), userContext);
    await service.waitFor(position, { timeoutMs: 5000 });
    expect(service.reader('fragile').get('SELECT messages FROM {counts} WHERE session_id = ?', 'session-fine')).toEqual({ messages: 1 });
  });

  it('a swap that fails (a unique index over the rebuilt rows) is reported, and the old generation keeps serving', async () => {
    const plain: Projection = {
      name: 'by_content',
      version: 1,
      eventTypes: ['message'],
      tables: { rows: 'event_id TEXT PRIMARY KEY, content TEXT NOT NULL' },
      apply(event, tx) {
        tx.run('INSERT OR IGNORE INTO {rows} VALUES (?, ?)', event.id, (event.data as { content: string }).content);
      },
    };
    await env.log.append('session-a', userMessages(1, 1, 'same'), userContext);
    await env.log.append('session-b', userMessages(1, 1, 'same'), userContext);
    const v1 = serve([plain]);
    await v1.waitFor((await env.store.headPosition())!);
    await v1.stop();
    const v2 = serve([{ ...plain, version: 2, indexes: ['CREATE UNIQUE INDEX {rows}_content ON {rows} (content)'] }]);
    await expect(v2.rebuild('by_content')).rejects.toThrow(/UNIQUE constraint failed/);
    expect(v2.status()[0]).toMatchObject({ generation: 1, frozen: true, rebuildFailure: expect.stringMatching(/UNIQUE/) });
    expect(v2.reader('by_content').all('SELECT content FROM {rows}')).toEqual([{ content: 'same 1' }, { content: 'same 1' }]);
  });

  it('refuses unknown projections and bad names', async () => {
    const service = serve([counter()]);
    await expect(service.rebuild('nope')).rejects.toThrow(/Unknown projection "nope"; projections are: message_counts/);
    expect(() => new ProjectionService(env.log, readModels, [{ ...counter(), name: 'Bad-Name' }], quiet)).toThrow(
      /lower-case letters/,
    );
  });
});
