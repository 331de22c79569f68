/**
 * ListSessions over HTTP (spec/http-api.md, "ListSessions"): keyset pages on (updatedAt, id) that
 * return rows sharing one `updatedAt` exactly once, the page size and its bounds, children and
 * lineage, the agents a page references, who sees which sessions across agents — and GetAgent's
 * sessions for protocol 1 clients.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from './signed.js';

interface Row {
  id: string;
  agentId: string;
  updatedAt: number;
  parentSessionId?: string;
  childSessionCount?: number;
}
interface Page {
  sessions: Row[];
  agents: { id: string; accessRole: string }[];
  nextCursor?: { updatedBefore: number; idBefore: string };
}

const idOf = (key: KeyPair) => principalToString(key.principal);

describe('ListSessions', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let ownerId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-session-list-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    ownerId = idOf(owner);
    await provider(owner);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (action: Record<string, unknown>, signer: KeyPair = owner, protocol: number = AGENTS_PROTOCOL_VERSION) => {
    const response = await post(base, await signedBody(signer, action, { protocol }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown> };
  };
  const ok = async (action: Record<string, unknown>, signer: KeyPair = owner) => {
    const answer = await call(action, signer);
    expect(answer.status, `${String(action._)}: ${JSON.stringify(answer.value)}`).toBe(200);
    return answer.value;
  };
  const list = async (action: Record<string, unknown> = {}, signer: KeyPair = owner) => (await ok({ _: 'ListSessions', ...action }, signer)) as unknown as Page;
  const provider = (signer: KeyPair) => ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } }, signer);
  const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' };
  const createAgent = async (signer: KeyPair = owner, name = 'Helper') => ((await ok({ _: 'CreateAgent', definition: { ...definition, name } }, signer)) as { agentId: string }).agentId;
  const createSession = async (agentId: string, signer: KeyPair = owner) => ((await ok({ _: 'CreateSession', agentId }, signer)) as { sessionId: string }).sessionId;

  /** Every page from the first, following nextCursor until it is absent. */
  async function allPages(action: Record<string, unknown>, signer: KeyPair = owner): Promise<Page[]> {
    const pages: Page[] = [];
    let cursor: Page['nextCursor'];
    do {
      const page = await list({ ...action, ...(cursor ? { cursor } : {}) }, signer);
      pages.push(page);
      cursor = page.nextCursor;
      expect(pages.length).toBeLessThan(500);
    } while (cursor);
    return pages;
  }

  /** Sessions appended straight to the log — the same events CreateSession appends — for lists too long to create one request at a time. */
  async function appendSessions(agentId: string, count: number, extra: { parentSessionId?: string; at?: number } = {}): Promise<string[]> {
    const log = app.get<EventLog>(EVENT_LOG);
    const ids = Array.from({ length: count }, () => crypto.randomUUID());
    const results = await Promise.all(
      ids.map((id) =>
        log.append(
          `session-${id}`,
          [{ type: 'SessionCreated', data: { agentId, ownerAccountId: ownerId, ...(extra.parentSessionId ? { parentSessionId: extra.parentSessionId } : {}) } }],
          { actor: 'agent', accountId: ownerId, causationId: 'test', correlationId: 'test', ...(extra.at !== undefined ? { at: extra.at } : {}) },
          { expected: 'no_stream' },
        ),
      ),
    );
    const last = results.map((r) => r.position).sort((a, b) => (a.commit < b.commit ? -1 : 1)).at(-1)!;
    await app.get(ProjectionService).waitFor(last);
    return ids;
  }

  it('pages through sessions sharing one updatedAt with each returned exactly once, newest first', async () => {
    const agentId = await createAgent();
    const tie = Date.now() + 1_000;
    const createdAt = async (at: number) => {
      const now = vi.spyOn(Date, 'now').mockReturnValue(at);
      try {
        return await createSession(agentId);
      } finally {
        now.mockRestore();
      }
    };
    const older = await createdAt(tie - 10);
    const tied: string[] = [];
    for (let i = 0; i < 5; i++) tied.push(await createdAt(tie));
    const newer = await createdAt(tie + 10);

    const pages = await allPages({ agentId, limit: 2 });
    const expected = [newer, ...[...tied].sort().reverse(), older];
    expect(pages.map((p) => p.sessions.map((s) => s.id))).toEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4, 6), expected.slice(6)]);
    expect(pages.flatMap((p) => p.sessions).filter((s) => tied.includes(s.id)).map((s) => s.updatedAt)).toEqual(Array(5).fill(tie));
    // The cursor is the last row of its page, and the last page has none.
    expect(pages[0]!.nextCursor).toEqual({ updatedBefore: tie, idBefore: expected[1] });
    expect(pages[2]!.nextCursor).toEqual({ updatedBefore: tie, idBefore: expected[5] });
    expect(pages[3]).not.toHaveProperty('nextCursor');

    // The same across agents, and with a page that ends exactly at the end of the list.
    const across = await allPages({ limit: 7 });
    expect(across.map((p) => p.sessions.map((s) => s.id))).toEqual([expected]);
    expect(across[0]).not.toHaveProperty('nextCursor');
  });

  it('pages five tied sessions written with one timestamp, in pages of two', async () => {
    const agentId = await createAgent();
    const at = Date.now() - 60_000;
    const tied = await appendSessions(agentId, 5, { at });
    const pages = await allPages({ agentId, limit: 2 });
    expect(pages.map((p) => p.sessions.length)).toEqual([2, 2, 1]);
    const ids = pages.flatMap((p) => p.sessions.map((s) => s.id));
    expect(ids).toEqual([...tied].sort().reverse());
    expect(new Set(ids).size).toBe(5);
    expect(pages.at(-1)).not.toHaveProperty('nextCursor');
  });

  it('gives 50 by default and clamps limit to 1–200; a limit that is not a number is refused', async () => {
    const agentId = await createAgent();
    const ids = await appendSessions(agentId, 201);
    const sizes = async (limit?: unknown) => {
      const page = await list({ agentId, ...(limit === undefined ? {} : { limit }) });
      return [page.sessions.length, page.nextCursor !== undefined];
    };
    expect(await sizes()).toEqual([50, true]);
    expect(await sizes(0)).toEqual([1, true]);
    expect(await sizes(-5)).toEqual([1, true]);
    expect(await sizes(200)).toEqual([200, true]);
    expect(await sizes(1000)).toEqual([200, true]);
    expect(await sizes(201)).toEqual([200, true]);

    const pages = await allPages({ agentId, limit: 1000 });
    expect(pages.map((p) => p.sessions.length)).toEqual([200, 1]);
    expect(pages.flatMap((p) => p.sessions.map((s) => s.id)).sort()).toEqual([...ids].sort());

    for (const limit of ['x', '10', true, null, {}]) {
      const refused = await call({ _: 'ListSessions', agentId, limit });
      expect(refused.status).toBe(400);
      expect(refused.value.message).toMatch(/^ListSessions\.limit must be a number \(it is clamped to 1–200\), got /);
    }
  });

  it('lists children by default, top-level rows with includeChildren false, and a parent’s children with parentSessionId', async () => {
    const agentId = await createAgent();
    const parent = await createSession(agentId);
    const loner = await createSession(agentId);
    const children = await appendSessions(agentId, 2, { parentSessionId: parent });
    const grandchild = (await appendSessions(agentId, 1, { parentSessionId: children[0]! }))[0]!;
    const ids = (page: Page) => page.sessions.map((s) => s.id).sort();

    const everything = await list({ agentId });
    expect(ids(everything)).toEqual([parent, loner, ...children, grandchild].sort());
    expect(ids(await list({ agentId, includeChildren: true }))).toEqual(ids(everything));
    expect(ids(await list())).toEqual(ids(everything));

    const top = await list({ agentId, includeChildren: false });
    expect(ids(top)).toEqual([parent, loner].sort());
    expect(top.sessions.find((s) => s.id === parent)).toMatchObject({ childSessionCount: 2 });
    expect(top.sessions.find((s) => s.id === loner)).not.toHaveProperty('childSessionCount');
    expect(ids(await list({ includeChildren: false }))).toEqual([parent, loner].sort());

    // parentSessionId ignores includeChildren, and does not descend further than one level.
    const kids = await list({ parentSessionId: parent, includeChildren: false });
    expect(ids(kids)).toEqual([...children].sort());
    expect(kids.sessions.every((s) => s.parentSessionId === parent)).toBe(true);
    expect(kids.sessions.find((s) => s.id === children[0])).toMatchObject({ childSessionCount: 1 });
    expect(ids(await list({ parentSessionId: children[0]! }))).toEqual([grandchild]);
    expect((await list({ parentSessionId: loner })).sessions).toEqual([]);

    expect(await call({ _: 'ListSessions', parentSessionId: crypto.randomUUID() })).toEqual({ status: 404, value: { _: 'Error', message: 'Session not found' } });
    const stranger = newKey();
    expect(await call({ _: 'ListSessions', parentSessionId: parent }, stranger)).toEqual({ status: 404, value: { _: 'Error', message: 'Session not found' } });
  });

  it('returns only the agents the page’s sessions reference', async () => {
    const [a, b, unused] = [await createAgent(owner, 'A'), await createAgent(owner, 'B'), await createAgent(owner, 'Unused')];
    const inA = await createSession(a);
    const inB = await createSession(b);
    const agentIds = (page: Page) => page.agents.map((agent) => agent.id).sort();

    const all = await list();
    expect(all.sessions.map((s) => s.id).sort()).toEqual([inA, inB].sort());
    expect(agentIds(all)).toEqual([a, b].sort());
    expect(all.agents.map((agent) => agent.accessRole)).toEqual(['owner', 'owner']);
    expect(agentIds(all)).not.toContain(unused);

    const first = await list({ limit: 1 });
    expect(first.sessions).toHaveLength(1);
    expect(agentIds(first)).toEqual([first.sessions[0]!.agentId]);
    expect((await list({ agentId: unused })).agents).toEqual([]);
  });

  it('lists across agents the account owns or accepted, never public-only or pending ones', async () => {
    const [user, other] = [newKey(), newKey()];
    await provider(user);
    await provider(other);
    const own = await createAgent(user, 'Own');
    const shared = await createAgent(other, 'Shared');
    const publicChat = await createAgent(other, 'Public');
    const pending = await createAgent(other, 'Pending');
    const unrelated = await createAgent(other, 'Unrelated');
    await ok({ _: 'InviteAgentCollaborator', agentId: shared, accountId: idOf(user), role: 'reader' }, other);
    await ok({ _: 'AcceptAgentInvite', agentId: shared }, user);
    await ok({ _: 'InviteAgentCollaborator', agentId: pending, accountId: idOf(user), role: 'writer' }, other);
    await ok({ _: 'SetAgentPublicRead', agentId: publicChat, publicRead: true }, other);
    await ok({ _: 'SetAgentPublicChat', agentId: publicChat, publicChat: true }, other);

    const inOwn = await createSession(own, user);
    const inShared = await createSession(shared, other);
    // Even a session the user started itself, through public chat, stays out of its cross-agent list.
    const inPublic = await createSession(publicChat, user);
    await createSession(pending, other);
    await createSession(unrelated, other);

    const mine = await list({}, user);
    expect(mine.sessions.map((s) => s.id).sort()).toEqual([inShared, inOwn].sort());
    expect(mine.agents.map((a) => [a.id, a.accessRole]).sort()).toEqual([[own, 'owner'], [shared, 'reader']].sort());

    // Asked for by id, a public agent's sessions are readable; a pending invitation's are not.
    const onPublic = await list({ agentId: publicChat }, user);
    expect(onPublic.sessions.map((s) => s.id)).toEqual([inPublic]);
    expect(onPublic.agents.map((a) => [a.id, a.accessRole])).toEqual([[publicChat, 'chatter']]);
    expect(await call({ _: 'ListSessions', agentId: pending }, user)).toEqual({ status: 404, value: { _: 'Error', message: 'Agent not found' } });

    // Accepting the invitation brings the agent's sessions in.
    await ok({ _: 'AcceptAgentInvite', agentId: pending }, user);
    expect((await list({}, user)).sessions).toHaveLength(3);
    // Removal takes them away again.
    await ok({ _: 'RemoveAgentCollaborator', agentId: shared, accountId: idOf(user) }, other);
    expect((await list({}, user)).sessions.map((s) => s.agentId).sort()).toEqual([own, pending].sort());
  });

  it('answers GetAgent with the sessions for a protocol 1 client, and with sessionCount for protocol 3', async () => {
    const agentId = await createAgent();
    const first = await createSession(agentId);
    const second = await createSession(agentId);
    const child = (await appendSessions(agentId, 1, { parentSessionId: first }))[0]!;
    const listed = (await list({ agentId })).sessions;

    const old = await call({ _: 'GetAgent', agentId }, owner, 1);
    expect(old.status).toBe(200);
    expect(old.value).not.toHaveProperty('sessionCount');
    expect(old.value.sessions).toEqual(listed);
    expect((old.value.sessions as Row[]).map((s) => s.id)).toEqual(expect.arrayContaining([first, second, child]));

    const current = await call({ _: 'GetAgent', agentId });
    expect(current.value).toMatchObject({ _: 'GetAgentResponse', agent: { id: agentId }, sessionCount: 3 });
    expect(current.value).not.toHaveProperty('sessions');

    await ok({ _: 'DeleteSession', sessionId: second });
    expect(((await call({ _: 'GetAgent', agentId }, owner, 1)).value.sessions as Row[]).map((s) => s.id).sort()).toEqual([first, child].sort());
    expect((await call({ _: 'GetAgent', agentId })).value.sessionCount).toBe(2);
  });
});
