/**
 * Who may subscribe to what on /agents/ws, and what a socket answers to anything else: the four
 * keys × every kind of account, one account per socket, a limit on keys, access lost mid-stream, and
 * garbage frames — each answered with an error frame on a socket that stays usable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@ipld/dag-cbor';
import { createCapability, principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartialBus } from '../../src/events/partial-bus.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/gateway/ws/limits.js';
import type { AgentWSEvent } from '../../src/protocol/ws.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import { newKey, signedApi, signedBody, startTestServer, type KeyPair } from './signed.js';
import { definition, provider, text, TestSocket } from './ws-client.js';

type Persona = 'owner' | 'writer' | 'reader' | 'publicReader' | 'pending' | 'stranger';
const PERSONAS: Persona[] = ['owner', 'writer', 'reader', 'publicReader', 'pending', 'stranger'];
const idOf = (key: KeyPair) => principalToString(key.principal);

interface Agent {
  agentId: string;
  sessionId: string;
  rootRunId: string;
}

describe('/agents/ws access', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let api: ReturnType<typeof signedApi>;
  const keys = Object.fromEntries(PERSONAS.map((p) => [p, newKey()])) as Record<Persona, KeyPair>;
  /** Shared with writer, reader and a pending invitee. */
  let shared: Agent;
  /** Public read on, shared with nobody. */
  let open: Agent;
  const sockets: TestSocket[] = [];

  const connect = async () => {
    const socket = await TestSocket.open(base);
    sockets.push(socket);
    return socket;
  };

  async function agentWithSessionAndRun(): Promise<Agent> {
    const { agentId } = (await api.ok({ _: 'CreateAgent', definition })) as { agentId: string };
    const { sessionId } = (await api.ok({ _: 'CreateSession', agentId })) as { sessionId: string };
    await api.ok({ _: 'MessageSession', sessionId, content: text('hello') });
    const run = app
      .get(ProjectionService)
      .reader('runs')
      .get<{ run_id: string }>('SELECT run_id FROM {runs} WHERE session_id = ? AND root_run_id = run_id', sessionId);
    return { agentId, sessionId, rootRunId: run!.run_id };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-ws-access-'));
    ({ app, base } = await startTestServer(dir));
    api = signedApi(base, keys.owner);
    await api.ok({ _: 'SetModelProvider', name: 'local', provider });
    shared = await agentWithSessionAndRun();
    for (const [who, role] of [['writer', 'writer'], ['reader', 'reader'], ['pending', 'reader']] as const) {
      await api.ok({ _: 'InviteAgentCollaborator', agentId: shared.agentId, accountId: idOf(keys[who]), role });
    }
    await api.ok({ _: 'AcceptAgentInvite', agentId: shared.agentId }, keys.writer);
    await api.ok({ _: 'AcceptAgentInvite', agentId: shared.agentId }, keys.reader);
    open = await agentWithSessionAndRun();
    await api.ok({ _: 'SetAgentPublicRead', agentId: open.agentId, publicRead: true });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.socket.terminate();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const agentOf = (persona: Persona) => (persona === 'publicReader' ? open : shared);
  const KEYS: [string, (a: Agent) => string][] = [
    ['agents', (a) => `agents/${a.agentId}`],
    ['sessions', (a) => `sessions/${a.sessionId}`],
    ['runs', (a) => `runs/${a.rootRunId}`],
  ];
  //                                      owner writer reader publicReader pending stranger
  const ALLOWED: Record<Persona, boolean> = { owner: true, writer: true, reader: true, publicReader: true, pending: false, stranger: false };
  const cells = KEYS.flatMap(([kind, keyOf]) => PERSONAS.map((persona) => ({ kind, keyOf, persona, allowed: ALLOWED[persona] })));

  it.each(cells)('$kind as $persona: allowed $allowed', async ({ keyOf, persona, allowed }) => {
    const socket = await connect();
    const key = keyOf(agentOf(persona));
    await socket.subscribe(keys[persona], key);
    const first = await socket.next();
    if (!allowed) {
      // Forbidden and missing read the same: the stranger learns nothing.
      expect(first).toEqual({ _: 'error', message: `Not found: ${key}` });
      const missing = `${key.split('/')[0]}/${crypto.randomUUID()}`;
      await socket.subscribe(keys[persona], missing);
      expect(await socket.next()).toEqual({ _: 'error', message: `Not found: ${missing}` });
      return;
    }
    expect(first).toEqual({ _: 'subscribed', key, accountId: idOf(keys[persona]) });
    if (key.startsWith('sessions/')) expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: agentOf(persona).sessionId } });
    if (key.startsWith('runs/')) {
      expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: agentOf(persona).rootRunId, rootRunId: agentOf(persona).rootRunId, depth: 0, kind: 'agent' } });
    }
  });

  it.each(PERSONAS)('account key: %s may subscribe to its own account only', async (persona) => {
    const socket = await connect();
    const own = `account/${idOf(keys[persona])}`;
    await socket.subscribe(keys[persona], own);
    expect(await socket.next()).toEqual({ _: 'subscribed', key: own, accountId: idOf(keys[persona]) });
    const other = persona === 'owner' ? keys.stranger : keys.owner;
    await socket.subscribe(keys[persona], `account/${idOf(other)}`);
    expect(await socket.next()).toEqual({
      _: 'error',
      message: `account/${idOf(other)} is not the account this Subscribe is signed for; subscribe to account/${idOf(keys[persona])}`,
    });
  });

  it('accepts a delegated signer the account authorized, for the account', async () => {
    const delegate = newKey();
    const capability = (await createCapability(keys.owner, delegate.principal, 'AGENT', Date.now(), { label: 'laptop' })).data;
    await api.ok({ _: 'RegisterSigner', capability }, delegate, keys.owner);
    const socket = await connect();
    await socket.subscribe(delegate, `sessions/${shared.sessionId}`, { account: keys.owner });
    expect(await socket.next()).toEqual({ _: 'subscribed', key: `sessions/${shared.sessionId}`, accountId: idOf(keys.owner) });

    const unauthorized = await connect();
    await unauthorized.subscribe(newKey(), `sessions/${shared.sessionId}`, { account: keys.owner });
    expect(await unauthorized.next()).toMatchObject({ _: 'error', message: expect.stringMatching(/^Signer is not authorized for account/) });
  });

  it('refuses to switch accounts after a subscription, naming both, and stays usable', async () => {
    const socket = await connect();
    await socket.subscribe(keys.owner, `agents/${shared.agentId}`);
    expect(await socket.next()).toMatchObject({ _: 'subscribed' });
    await socket.subscribe(keys.writer, `agents/${shared.agentId}`);
    expect(await socket.next()).toEqual({
      _: 'error',
      message:
        `This socket is subscribed for account ${idOf(keys.owner)}; a Subscribe signed for account ${idOf(keys.writer)} ` +
        'is refused: a socket may not switch accounts, open another socket for another account',
    });
    await socket.subscribe(keys.owner, `sessions/${shared.sessionId}`);
    expect(await socket.next()).toMatchObject({ _: 'subscribed', key: `sessions/${shared.sessionId}` });
  });

  it('a refused first Subscribe does not lock the socket to its account', async () => {
    const socket = await connect();
    await socket.subscribe(keys.stranger, `agents/${shared.agentId}`);
    expect(await socket.next()).toMatchObject({ _: 'error' });
    await socket.subscribe(keys.owner, `agents/${shared.agentId}`);
    expect(await socket.next()).toMatchObject({ _: 'subscribed', accountId: idOf(keys.owner) });
  });

  it('answers garbage frames with error frames saying what is accepted, and keeps the socket usable', async () => {
    const socket = await connect();
    const owner = keys.owner;
    const sessionKey = `sessions/${shared.sessionId}`;
    const refusals: [string, () => Promise<Uint8Array | string>, RegExp][] = [
      ['a text frame', async () => 'subscribe me', /^Text frames are not accepted: send a Subscribe action as a binary frame/],
      ['bytes that are not CBOR', async () => Uint8Array.of(0xff, 0x00, 0x13), /^Invalid CBOR request: expected a DAG-CBOR encoded SignedActionEnvelope/],
      ['CBOR that is not an envelope', async () => encode({ hello: 'world' }), /^Invalid envelope: unknown field "hello"/],
      [
        'a bad signature',
        async () => {
          const bytes = await signedBody(owner, { _: 'Subscribe', key: sessionKey });
          // Inside the signature (after the map header, "sig" and the byte string's header).
          bytes[10] = bytes[10]! ^ 0xff;
          return bytes;
        },
        /^Invalid signature/,
      ],
      ['a stale timestamp', async () => signedBody(owner, { _: 'Subscribe', key: sessionKey }, { ts: Date.now() - 6 * 60_000 }), /^Action timestamp is too far from server time/],
      ['another action', async () => signedBody(owner, { _: 'ListAgents' }), /^Unknown action "ListAgents" on \/agents\/ws: this socket accepts only Subscribe/],
      ['an unknown field', async () => signedBody(owner, { _: 'Subscribe', key: sessionKey, since: 3 }), /^Unknown field "since" in Subscribe; accepted fields: key, afterSeq$/],
      ['no key', async () => signedBody(owner, { _: 'Subscribe' }), /^Subscribe.key must be account\/<accountId>, agents\/<agentId>, sessions\/<sessionId> or runs\/<rootRunId>; got nothing$/],
      ['an unknown key kind', async () => signedBody(owner, { _: 'Subscribe', key: 'documents/x' }), /^Subscribe.key must be .*; got "documents\/x"$/],
      ['a session id that is no id', async () => signedBody(owner, { _: 'Subscribe', key: 'sessions/abc' }), /^Subscribe.key "sessions\/abc": the id after "sessions\/" must be a session id/],
      ['a negative afterSeq', async () => signedBody(owner, { _: 'Subscribe', key: sessionKey, afterSeq: -1 }), /^Subscribe.afterSeq must be a whole number of 0 or more/],
      ['a fractional afterSeq', async () => signedBody(owner, { _: 'Subscribe', key: sessionKey, afterSeq: 1.5 }), /^Subscribe.afterSeq must be a whole number of 0 or more/],
    ];
    for (const [what, frame, message] of refusals) {
      socket.send(await frame());
      const answer = await socket.next();
      expect(answer._, what).toBe('error');
      expect((answer as { message: string }).message, what).toMatch(message);
    }
    await socket.subscribe(owner, sessionKey);
    expect(await socket.next()).toEqual({ _: 'subscribed', key: sessionKey, accountId: idOf(owner) });
  });

  it(`holds at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} keys per socket; subscribing to a held key again is fine`, async () => {
    const sessions: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) {
      sessions.push(((await api.ok({ _: 'CreateSession', agentId: shared.agentId })) as { sessionId: string }).sessionId);
    }
    const socket = await connect();
    for (const sessionId of sessions) await socket.subscribe(keys.owner, `sessions/${sessionId}`);
    const isSubscribed = (frame: AgentWSEvent) => frame._ === 'subscribed' || frame._ === 'error';
    for (let i = 0; i < sessions.length; i++) expect(await socket.until(isSubscribed)).toMatchObject({ _: 'subscribed' });
    await socket.subscribe(keys.owner, `agents/${shared.agentId}`);
    expect(await socket.until(isSubscribed)).toEqual({
      _: 'error',
      message: `Too many subscriptions: a socket holds at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} keys; open another socket for agents/${shared.agentId}`,
    });
    await socket.subscribe(keys.owner, `sessions/${sessions[0]}`, { afterSeq: 0 });
    expect(await socket.until(isSubscribed)).toMatchObject({ _: 'subscribed', key: `sessions/${sessions[0]}` });
  });

  it('sends AgentInfo as each role sees it, session changes to members, and ends a subscription whose access ends', async () => {
    const a = await agentWithSessionAndRun();
    const member = newKey();
    await api.ok({ _: 'InviteAgentCollaborator', agentId: a.agentId, accountId: idOf(member), role: 'writer' });
    await api.ok({ _: 'AcceptAgentInvite', agentId: a.agentId }, member);
    const [ownerSocket, memberAgent, memberSession, memberRuns] = await Promise.all([connect(), connect(), connect(), connect()]);
    await ownerSocket.subscribe(keys.owner, `agents/${a.agentId}`);
    await memberAgent.subscribe(member, `agents/${a.agentId}`);
    await memberSession.subscribe(member, `sessions/${a.sessionId}`);
    await memberRuns.subscribe(member, `runs/${a.rootRunId}`);
    for (const socket of [ownerSocket, memberAgent, memberSession, memberRuns]) await socket.until((f) => f._ === 'subscribed');
    await memberSession.until((f) => f._ === 'change');
    await memberRuns.until((f) => f._ === 'change');

    await api.ok({ _: 'UpdateAgent', agentId: a.agentId, definition: { ...definition, name: 'Renamed' } });
    expect(await ownerSocket.next()).toMatchObject({ _: 'change', key: `agents/${a.agentId}`, value: { name: 'Renamed', accessRole: 'owner' } });
    expect(await memberAgent.next()).toMatchObject({ _: 'change', key: `agents/${a.agentId}`, value: { name: 'Renamed', accessRole: 'writer' } });

    const { sessionId } = (await api.ok({ _: 'CreateSession', agentId: a.agentId })) as { sessionId: string };
    expect(await ownerSocket.next()).toMatchObject({ _: 'change', key: `sessions/${sessionId}`, value: { id: sessionId, agentId: a.agentId } });
    expect(await memberAgent.next()).toMatchObject({ _: 'change', key: `sessions/${sessionId}` });

    await api.ok({ _: 'RemoveAgentCollaborator', agentId: a.agentId, accountId: idOf(member) });
    const ended = (key: string) => ({ _: 'error', message: `${key} ended: this account no longer has a role on agent ${a.agentId}` });
    expect(await memberAgent.until((f) => f._ === 'error')).toEqual(ended(`agents/${a.agentId}`));
    expect(await memberSession.until((f) => f._ === 'error')).toEqual(ended(`sessions/${a.sessionId}`));
    expect(await memberRuns.until((f) => f._ === 'error')).toEqual(ended(`runs/${a.rootRunId}`));
    await api.ok({ _: 'MessageSession', sessionId: a.sessionId, content: text('not for the removed member') });
    expect((await memberSession.quiet()).filter((f) => f._ === 'append')).toEqual([]);
    expect(await ownerSocket.until((f) => f._ === 'change' && f.key === `agents/${a.agentId}`)).toMatchObject({ value: { accessRole: 'owner' } });

    await api.ok({ _: 'DeleteAgent', agentId: a.agentId });
    expect(await ownerSocket.until((f) => f._ === 'error')).toEqual({ _: 'error', message: `agents/${a.agentId} ended: agent ${a.agentId} was deleted` });
  });

  it('streams a run tree: the snapshot, partials, then a change when a run of it changes', async () => {
    const a = await agentWithSessionAndRun();
    const socket = await connect();
    const key = `runs/${a.rootRunId}`;
    await socket.subscribe(keys.owner, key);
    expect(await socket.next()).toMatchObject({ _: 'subscribed', key });
    expect(await socket.next()).toMatchObject({ _: 'change', key, value: { id: a.rootRunId, account: idOf(keys.owner), agentId: a.agentId, sessionId: a.sessionId } });
    app.get(PartialBus).publishRunPartial(a.rootRunId, a.rootRunId, 'progress-1', { progress: { fraction: 0.5, label: 'halfway' } });
    expect(await socket.next()).toEqual({ _: 'appendPartial', key, runId: a.rootRunId, partialId: 'progress-1', patch: { progress: { fraction: 0.5, label: 'halfway' } } });
    await api.ok({ _: 'StopSession', sessionId: a.sessionId });
    expect(await socket.until((f) => f._ === 'change' && (f.value as { status: string }).status === 'canceled')).toMatchObject({ value: { id: a.rootRunId } });
  });
});
