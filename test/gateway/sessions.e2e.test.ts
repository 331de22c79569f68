/**
 * Sessions over HTTP, signed as the Seed apps sign (spec/http-api.md, "CreateSession" … "StopSession"):
 * the lifecycle, idempotency, the user message as the Log records it, the queued run, many writers at
 * once, the hash chain, renames, deletion and what it takes with it, and a rebuild of the read model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { createCapability, principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { logEventCid } from '../../src/events/log-chain.js';
import { StreamNotFoundError } from '../../src/events/store/errors.js';
import { comparePositions } from '../../src/events/store/position.js';
import type { RecordedEvent } from '../../src/events/store/types.js';
import type { AccountChangeRow } from '../../src/projections/account-changes.projection.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import type { RunRow } from '../../src/projections/runs.projection.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { collect } from '../store/helpers.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from './signed.js';

type Answer = { status: number; value: Record<string, unknown>; bytes: Uint8Array };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOG_TYPES = ['message', 'tool_call', 'tool_result', 'error'];
const idOf = (key: KeyPair) => principalToString(key.principal);
const text = (words: string) => [{ type: 'text', text: words }];

describe('sessions', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let ownerId: string;
  let log: EventLog;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-sessions-'));
    ({ app, base } = await startTestServer(dir));
    log = app.get<EventLog>(EVENT_LOG);
    owner = newKey();
    ownerId = idOf(owner);
    await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
  });
  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (action: Record<string, unknown>, signer: KeyPair = owner, account?: KeyPair): Promise<Answer> => {
    const response = await post(base, await signedBody(signer, action, { protocol: AGENTS_PROTOCOL_VERSION, ...(account ? { account } : {}) }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown>, bytes: response.bytes };
  };
  const ok = async (action: Record<string, unknown>, signer: KeyPair = owner, account?: KeyPair) => {
    const answer = await call(action, signer, account);
    expect(answer.status, `${String(action._)}: ${JSON.stringify(answer.value)}`).toBe(200);
    return answer.value;
  };
  const definition = { name: 'Helper', systemPrompt: '# Role\n\nYou are **helpful**.', modelProvider: 'local', model: 'llama-3.1-8b' };
  const createAgent = async (def: Record<string, unknown> = definition) => ((await ok({ _: 'CreateAgent', definition: def })) as { agentId: string }).agentId;
  const createSession = async (agentId: string, extra: Record<string, unknown> = {}, signer: KeyPair = owner) =>
    ((await ok({ _: 'CreateSession', agentId, ...extra }, signer)) as { sessionId: string }).sessionId;
  const send = (sessionId: string, words: string, signer: KeyPair = owner, extra: Record<string, unknown> = {}) =>
    ok({ _: 'MessageSession', sessionId, content: text(words), ...extra }, signer);
  const getSession = (sessionId: string, extra: Record<string, unknown> = {}) =>
    ok({ _: 'GetSession', sessionId, ...extra }) as Promise<{ session: Record<string, unknown>; events: SessionEventWire[]; systemPromptMarkdown: string }>;

  /** The session's stream as stored, not upcast: what the chain covers. */
  const rawStream = (sessionId: string) => collect(log.store.readStream(`session-${sessionId}`));
  const rawLog = async (sessionId: string) => (await rawStream(sessionId)).filter((e) => LOG_TYPES.includes(e.type));
  const allOfType = async (type: string) => collect(log.store.readAll({ filter: { eventTypes: [type] } }));
  const runsOf = async (sessionId: string) =>
    (await allOfType('RunQueued')).filter((e) => (e.data as { sessionId: string }).sessionId === sessionId);
  const runEvents = async (runStream: string) => (await collect(log.store.readStream(runStream))).map((e) => [e.type, e.data]);

  /** A child session, as the runtime will make one: no action creates them yet. */
  async function appendChildSession(agentId: string, parentSessionId: string): Promise<string> {
    const childId = crypto.randomUUID();
    const { position } = await log.append(
      `session-${childId}`,
      [{ type: 'SessionCreated', data: { agentId, ownerAccountId: ownerId, parentSessionId } }],
      { actor: 'agent', accountId: ownerId, causationId: 'test-delegate', correlationId: 'test-delegate' },
      { expected: 'no_stream' },
    );
    await app.get(ProjectionService).waitFor(position);
    return childId;
  }

  it('creates, gets, messages, lists, renames, stops and deletes a session', async () => {
    const agentId = await createAgent();
    const created = await ok({ _: 'CreateSession', agentId, title: 'First chat' });
    expect(created).toEqual({ _: 'CreateSessionResponse', sessionId: expect.stringMatching(UUID) });
    const sessionId = created.sessionId as string;

    const fresh = await getSession(sessionId);
    expect(fresh).toEqual({
      _: 'GetSessionResponse',
      session: { id: sessionId, account: ownerId, agentId, title: 'First chat', status: 'idle', createdAt: expect.any(Number), updatedAt: expect.any(Number) },
      events: [],
      systemPromptMarkdown: '# Role\n\nYou are **helpful**.',
    });

    expect(await send(sessionId, 'Hello')).toEqual({ _: 'MessageSessionResponse', sessionId, assistantEventId: '' });
    const got = await getSession(sessionId);
    expect(got.events).toEqual([
      {
        id: expect.stringMatching(UUID),
        sessionId,
        seq: 1,
        event: { type: 'message', role: 'user', content: 'Hello', rawMarkdown: 'Hello', actor: 'user', meta: { accountId: ownerId, signerId: ownerId } },
        createdAt: expect.any(Number),
      },
    ]);
    expect(got.session.updatedAt as number).toBeGreaterThanOrEqual(fresh.session.updatedAt as number);

    const listed = await ok({ _: 'ListSessions', agentId });
    expect(listed).toEqual({ _: 'ListSessionsResponse', sessions: [got.session], agents: [expect.objectContaining({ id: agentId, accessRole: 'owner' })] });

    const renamed = await ok({ _: 'UpdateSession', sessionId, title: 'Renamed' });
    expect(renamed).toEqual({ _: 'UpdateSessionResponse', session: { ...got.session, title: 'Renamed', updatedAt: expect.any(Number) } });

    // The message queued a turn; nothing runs it here, so Stop cancels it, and a second Stop finds nothing.
    expect(await ok({ _: 'StopSession', sessionId })).toEqual({ _: 'StopSessionResponse', sessionId, stopped: true });
    expect(await ok({ _: 'StopSession', sessionId })).toEqual({ _: 'StopSessionResponse', sessionId, stopped: false });
    const [queued] = await runsOf(sessionId);
    expect(await runEvents(queued!.stream)).toEqual([
      ['RunQueued', expect.anything()],
      ['RunCanceled', { reason: 'session-stopped' }],
    ]);

    expect(await ok({ _: 'DeleteSession', sessionId })).toEqual({ _: 'DeleteSessionResponse', sessionId, agentId });
    expect((await ok({ _: 'ListSessions', agentId })).sessions).toEqual([]);
  });

  it('gives every event an action appends an id of its own, across the streams it writes', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId);
    await send(sessionId, 'One');
    await send(sessionId, 'Two');
    await ok({ _: 'DeleteSession', sessionId });
    const ids = (await collect(log.store.readAll())).map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const [queued] = await allOfType('RunQueued');
    expect((queued!.data as { messageEventIds: string[] }).messageEventIds[0]).not.toBe(queued!.id);
  });

  it('creates one session for one clientRequestId, even when the duplicates race', async () => {
    const agentId = await createAgent();
    const action = { _: 'CreateSession', agentId, title: 'Once', clientRequestId: 'create-1' };
    const answers = await Promise.all([call(action), call(action), call(action)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const sessionId = answers[0]!.value.sessionId as string;
    for (const answer of answers) expect(Buffer.from(answer.bytes)).toEqual(Buffer.from(answers[0]!.bytes));
    expect((await call(action)).value).toEqual({ _: 'CreateSessionResponse', sessionId });

    expect((await allOfType('SessionCreated')).map((e) => e.stream)).toEqual([`session-${sessionId}`]);
    expect(((await ok({ _: 'ListSessions', agentId })).sessions as unknown[]).length).toBe(1);
    const changed = await call({ ...action, title: 'Another title' });
    expect([changed.status, changed.value.message]).toEqual([409, 'Client request ID payload mismatch']);
    const other = await createSession(agentId, { clientRequestId: 'create-2' });
    expect(other).not.toBe(sessionId);
  });

  it('appends one message and queues one run for one clientMessageId', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId);
    const action = { _: 'MessageSession', sessionId, content: text('Only once'), clientMessageId: 'msg-1' };
    const answers = await Promise.all([call(action), call(action)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(Buffer.from(answers[1]!.bytes)).toEqual(Buffer.from(answers[0]!.bytes));
    expect((await call(action)).status).toBe(200);

    const messages = await rawLog(sessionId);
    expect(messages.map((e) => (e.data as { content: string }).content)).toEqual(['Only once']);
    expect(await runsOf(sessionId)).toHaveLength(1);
    // Another id is another message.
    await send(sessionId, 'Only once', owner, { clientMessageId: 'msg-2' });
    expect((await rawLog(sessionId)).map((e) => e.metadata.seq)).toEqual([1, 2]);
    expect(await runsOf(sessionId)).toHaveLength(2);
  });

  it('records the user message exactly: folded context lines, blocks, the account and the delegated signer’s key', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId);
    const delegate = newKey();
    const capability = (await createCapability(owner, delegate.principal, 'AGENT', Date.now(), { label: 'laptop' })).data;
    await ok({ _: 'RegisterSigner', capability }, delegate, owner);

    const blocks = [{ block: { id: 'b1', type: 'Paragraph', text: 'Look at this', annotations: [], attributes: {} } }];
    const content = [
      { type: 'context', lines: ['Open document: hm://z6Mk/doc', 'View: content'] },
      { type: 'text', text: 'Look at **this**', blocks },
      { type: 'context', lines: ['Focused block: b1'] },
      { type: 'text', text: 'and summarize it' },
    ];
    await ok({ _: 'MessageSession', sessionId, content }, delegate, owner);

    const [stored, ...rest] = await rawLog(sessionId);
    expect(rest).toEqual([]);
    expect(stored!.data).toEqual({
      role: 'user',
      content: 'Look at **this**\n\nand summarize it',
      rawMarkdown: 'Look at **this**\n\nand summarize it',
      blocks,
      contextLines: ['Open document: hm://z6Mk/doc', 'View: content', 'Focused block: b1'],
      meta: { accountId: ownerId, signerId: idOf(delegate) },
    });
    expect(stored!.metadata).toEqual({
      v: 2,
      actor: 'user',
      accountId: ownerId,
      signerId: idOf(delegate),
      causationId: expect.any(String),
      correlationId: expect.any(String),
      at: expect.any(Number),
      seq: 1,
    });

    // The turn answering it names it, so a later turn's answers are not mistaken for this one's.
    const [queued, ...more] = await runsOf(sessionId);
    expect(more).toEqual([]);
    expect(queued!.stream).toMatch(/^run-[0-9a-f-]{36}$/);
    expect(queued!.data).toEqual({
      kind: 'agent',
      ownerAccountId: ownerId,
      agentId,
      sessionId,
      rootRunId: queued!.stream.slice('run-'.length),
      depth: 0,
      origin: 'user',
      priority: 'interactive',
      messageEventIds: [stored!.id],
    });
    const runs = app.get(ProjectionService).reader('runs').all<RunRow>('SELECT * FROM {runs} WHERE session_id = ?', sessionId);
    expect(runs.map((r) => [r.run_id, r.status])).toEqual([[queued!.stream.slice('run-'.length), 'queued']]);

    // The next message is chained to this one as stored.
    await send(sessionId, 'Next');
    const [, next] = await rawLog(sessionId);
    expect(next!.metadata).toMatchObject({ seq: 2, prev: logEventCid(stored!), signerId: ownerId });
  });

  it('keeps all of 20 concurrent messages from three accounts, in one contiguous, chained Log', async () => {
    const agentId = await createAgent();
    const [writer, chatter] = [newKey(), newKey()];
    await ok({ _: 'InviteAgentCollaborator', agentId, accountId: idOf(writer), role: 'writer' });
    await ok({ _: 'AcceptAgentInvite', agentId }, writer);
    await ok({ _: 'SetAgentPublicRead', agentId, publicRead: true });
    await ok({ _: 'SetAgentPublicChat', agentId, publicChat: true });
    const sessionId = await createSession(agentId);

    const senders = [owner, writer, chatter];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call({ _: 'MessageSession', sessionId, content: text(`message ${i}`) }, senders[i % 3]!)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

    const stored = await rawLog(sessionId);
    expect(stored.map((e) => e.metadata.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const contents = stored.map((e) => (e.data as { content: string }).content);
    expect([...contents].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i}`).sort());
    for (const event of stored) {
      const i = Number((event.data as { content: string }).content.split(' ')[1]);
      expect((event.data as { meta: unknown }).meta).toEqual({ accountId: idOf(senders[i % 3]!), signerId: idOf(senders[i % 3]!) });
    }
    expectChained(stored);
    expect(await runsOf(sessionId)).toHaveLength(20);
    // Readers see the same numbers the stream holds.
    expect((await getSession(sessionId)).events.map((e) => [e.seq, e.id])).toEqual(stored.map((e) => [e.metadata.seq, e.id]));
  });

  it('answers GetSession afterSeq with the events whose seq is strictly greater', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId);
    for (let i = 1; i <= 5; i++) await send(sessionId, `m${i}`);
    const seqs = async (afterSeq?: number) => (await getSession(sessionId, afterSeq === undefined ? {} : { afterSeq })).events.map((e) => e.seq);
    expect(await seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs(0)).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs(2)).toEqual([3, 4, 5]);
    expect(await seqs(4)).toEqual([5]);
    expect(await seqs(5)).toEqual([]);
    expect(await seqs(99)).toEqual([]);
  });

  it('gives the system prompt as markdown, from a markdown prompt and from a block prompt', async () => {
    const markdownAgent = await createAgent({ ...definition, systemPrompt: 'Be *brief*.\n\n- one\n- two' });
    expect((await getSession(await createSession(markdownAgent))).systemPromptMarkdown).toBe('Be *brief*.\n\n- one\n- two');

    const blockPrompt = [
      {
        block: { id: 'h1', type: 'Heading', text: 'Role', annotations: [], attributes: { childrenType: 'Group' } },
        children: [
          { block: { id: 'p1', type: 'Paragraph', text: 'You are helpful.', annotations: [{ type: 'Bold', starts: [8], ends: [15] }], attributes: {} } },
          { block: { id: 'p2', type: 'Paragraph', text: 'Be brief.', annotations: [], attributes: {} } },
        ],
      },
    ];
    const blockAgent = await createAgent({ ...definition, systemPrompt: blockPrompt });
    const sessionId = await createSession(blockAgent);
    // The block ids and the empty frontmatter of the apps' markdown dialect mean nothing to a model.
    expect((await getSession(sessionId)).systemPromptMarkdown).toBe('# Role\n\nYou are **helpful**.\n\nBe brief.');

    // The prompt the session continues with is the agent's current one.
    await ok({ _: 'UpdateAgent', agentId: blockAgent, definition: { ...definition, systemPrompt: 'Changed.' } });
    expect((await getSession(sessionId)).systemPromptMarkdown).toBe('Changed.');
  });

  it('trims, collapses and bounds titles, refuses empty ones, and marks a rename as the user’s', async () => {
    const agentId = await createAgent();
    const sessionId = await createSession(agentId, { title: '  Plans \n\t for   May ' });
    expect((await getSession(sessionId)).session.title).toBe('Plans for May');

    const before = (await getSession(sessionId)).session;
    const renamed = (await ok({ _: 'UpdateSession', sessionId, title: `  ${'a'.repeat(150)}   ${'b'.repeat(100)}\n` })) as { session: { title: string; updatedAt: number } };
    expect(renamed.session.title).toBe(`${'a'.repeat(150)} ${'b'.repeat(49)}`);
    expect(renamed.session.title).toHaveLength(200);
    expect(renamed.session.updatedAt).toBeGreaterThanOrEqual(before.updatedAt as number);
    // Counted in characters, never cut inside one.
    const emoji = (await ok({ _: 'UpdateSession', sessionId, title: '😀'.repeat(250) })) as { session: { title: string } };
    expect([...emoji.session.title]).toEqual(Array(200).fill('😀'));

    const renames = (await rawStream(sessionId)).filter((e) => e.type === 'SessionRenamed');
    expect(renames.map((e) => e.data)).toEqual([
      { title: `${'a'.repeat(150)} ${'b'.repeat(49)}`, titleSource: 'user' },
      { title: '😀'.repeat(200), titleSource: 'user' },
    ]);
    const { title_source } = app.get(ProjectionService).reader('session_view').get<{ title_source: string }>('SELECT title_source FROM {sessions} WHERE session_id = ?', sessionId)!;
    expect(title_source).toBe('user');

    const head = await log.store.headPosition();
    for (const title of ['', '   ', '\n\t ']) {
      const refused = await call({ _: 'UpdateSession', sessionId, title });
      expect([refused.status, refused.value.message]).toEqual([400, 'UpdateSession.title must have some text besides white space']);
    }
    const notText = await call({ _: 'UpdateSession', sessionId, title: 42 });
    expect([notText.status, notText.value.message]).toEqual([400, 'UpdateSession.title must be a string, got number 42']);
    expect(await log.store.headPosition()).toEqual(head);
    expect((await getSession(sessionId)).session.title).toBe('😀'.repeat(200));
  });

  it('deletes a session: runs canceled first, its Log gone, children promoted, everyone told', async () => {
    const agentId = await createAgent();
    const member = newKey();
    await ok({ _: 'InviteAgentCollaborator', agentId, accountId: idOf(member), role: 'writer' });
    await ok({ _: 'AcceptAgentInvite', agentId }, member);
    const sessionId = await createSession(agentId, { title: 'Doomed' });
    const kept = await createSession(agentId, { title: 'Kept' });
    await send(sessionId, 'one');
    await send(sessionId, 'two', member);
    await send(kept, 'stay');
    const childId = await appendChildSession(agentId, sessionId);
    const topLevel = async () => ((await ok({ _: 'ListSessions', agentId, includeChildren: false })).sessions as { id: string }[]).map((s) => s.id);
    expect(await topLevel()).toEqual(expect.arrayContaining([sessionId, kept]));
    expect(await topLevel()).not.toContain(childId);

    expect(await ok({ _: 'DeleteSession', sessionId })).toEqual({ _: 'DeleteSessionResponse', sessionId, agentId });

    const notFound = { status: 404, value: { _: 'Error', message: 'Session not found' } };
    const answer = async (action: Record<string, unknown>) => {
      const { status, value } = await call(action);
      return { status, value };
    };
    expect(await answer({ _: 'GetSession', sessionId })).toEqual(notFound);
    expect(await answer({ _: 'MessageSession', sessionId, content: text('anyone?') })).toEqual(notFound);
    expect(await answer({ _: 'UpdateSession', sessionId, title: 'Back' })).toEqual(notFound);
    expect(await answer({ _: 'DeleteSession', sessionId })).toEqual(notFound);
    expect(await answer({ _: 'StopSession', sessionId })).toEqual(notFound);
    expect(await answer({ _: 'ListSessions', parentSessionId: sessionId })).toEqual(notFound);
    await expect(rawStream(sessionId)).rejects.toBeInstanceOf(StreamNotFoundError);

    // Both queued turns were canceled, with the session as the reason; the other session's was not.
    const runs = await runsOf(sessionId);
    expect(runs).toHaveLength(2);
    for (const run of runs) expect((await runEvents(run.stream)).at(-1)).toEqual(['RunCanceled', { reason: 'session-deleted' }]);
    expect(await runEvents((await runsOf(kept))[0]!.stream)).toEqual([['RunQueued', expect.anything()]]);
    const [deleted] = await allOfType('SessionDeleted');
    for (const canceled of await allOfType('RunCanceled')) expect(comparePositions(canceled.position, deleted!.position)).toBe(-1);

    // The runs' history stays, detached from the deleted session.
    const runRows = app.get(ProjectionService).reader('runs').all<RunRow>('SELECT * FROM {runs} WHERE run_id IN (?, ?)', ...runs.map((r) => r.stream.slice('run-'.length)));
    expect(runRows.map((row) => [row.status, row.session_id])).toEqual([['canceled', null], ['canceled', null]]);

    // The child lives on at top level, and so does one made for the deleted session afterwards.
    const lateChild = await appendChildSession(agentId, sessionId);
    expect(await topLevel()).toEqual(expect.arrayContaining([kept, childId, lateChild]));
    expect(await topLevel()).not.toContain(sessionId);
    expect((await getSession(childId)).session).not.toHaveProperty('parentSessionId');
    expect((await getSession(kept)).events.map((e) => e.seq)).toEqual([1]);

    const changes = app
      .get(ProjectionService)
      .reader('account_changes')
      .all<AccountChangeRow>("SELECT account_id, reason, agent_id, session_id FROM {changes} WHERE reason = 'session-deleted'");
    expect(changes.map((c) => [c.account_id, c.agent_id, c.session_id]).sort()).toEqual(
      [
        [ownerId, agentId, sessionId],
        [idOf(member), agentId, sessionId],
      ].sort(),
    );
  });

  it('deletes an agent’s sessions with it, canceling their runs', async () => {
    const agentId = await createAgent();
    const other = await createAgent({ ...definition, name: 'Other' });
    const sessions = [await createSession(agentId), await createSession(agentId)];
    const survivor = await createSession(other);
    for (const sessionId of [...sessions, survivor]) await send(sessionId, 'hi');

    await ok({ _: 'DeleteAgent', agentId });
    for (const sessionId of sessions) {
      expect((await call({ _: 'GetSession', sessionId })).value).toEqual({ _: 'Error', message: 'Session not found' });
      await expect(rawStream(sessionId)).rejects.toBeInstanceOf(StreamNotFoundError);
      const [run] = await runsOf(sessionId);
      expect((await runEvents(run!.stream)).at(-1)).toEqual(['RunCanceled', { reason: 'agent-deleted' }]);
    }
    const deletions = await allOfType('SessionDeleted');
    expect(deletions.map((e) => [e.stream, e.data]).sort()).toEqual(sessions.map((id) => [`session-${id}`, { agentId, reason: 'agent-deleted' }]).sort());
    expect(((await ok({ _: 'ListSessions' })).sessions as { id: string }[]).map((s) => s.id)).toEqual([survivor]);
    expect((await getSession(survivor)).events).toHaveLength(1);
  });

  it('answers ListSessions and GetSession identically after session_view is rebuilt from the log', async () => {
    const agentId = await createAgent();
    const other = await createAgent({ ...definition, name: 'Other' });
    const a = await createSession(agentId, { title: 'A' });
    const b = await createSession(agentId);
    const c = await createSession(other, { title: 'C' });
    await send(a, 'one');
    await send(a, 'two');
    await send(c, 'three');
    await ok({ _: 'UpdateSession', sessionId: b, title: 'B named' });
    const child = await appendChildSession(agentId, a);
    const gone = await createSession(agentId, { title: 'Gone' });
    await send(gone, 'bye');
    await ok({ _: 'DeleteSession', sessionId: gone });

    const answers = async () => [
      await call({ _: 'ListSessions' }),
      await call({ _: 'ListSessions', includeChildren: false }),
      await call({ _: 'ListSessions', agentId, limit: 2 }),
      await call({ _: 'ListSessions', parentSessionId: a }),
      ...(await Promise.all([a, b, c, child, gone].map((sessionId) => call({ _: 'GetSession', sessionId })))),
    ].map(({ status, value }) => ({ status, value }));
    const before = await answers();
    expect(before.map((x) => x.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 404]);
    expect((before[0]!.value.sessions as unknown[]).length).toBe(4);

    await app.get(ProjectionService).rebuild('session_view');
    expect(await answers()).toEqual(before);
  });
});

interface SessionEventWire {
  id: string;
  seq: number;
  event: Record<string, unknown>;
}

/** Each Log event's `prev` is the CID of the one before it as stored; the first has none. */
function expectChained(stored: readonly RecordedEvent[]): void {
  stored.forEach((event, index) => {
    if (index === 0) expect(event.metadata).not.toHaveProperty('prev');
    else expect(event.metadata.prev, `prev of seq ${String(event.metadata.seq)}`).toBe(logEventCid(stored[index - 1]!));
  });
}
