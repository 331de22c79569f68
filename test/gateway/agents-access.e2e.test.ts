/**
 * Who may do what to a shared agent, over HTTP with signed requests (spec/http-api.md, "Agent
 * invitations and collaborators", "ListAgents", "ListSigningIdentities"): every action of the agents
 * and sharing area × every kind of account. An account that cannot see the agent gets 404, never 403.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONAS, sharedAgent, type Persona, type SharedAgent } from './personas.js';
import { newKey, signedApi, type KeyPair, startTestServer } from './signed.js';

type World = SharedAgent;

const idOf = (key: KeyPair) => principalToString(key.principal);

describe('agent access', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;

  const call = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).call(action, signer);
  const ok = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).ok(action, signer);
  const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'llama-3.1-8b' };

  const world = (persona: Persona): Promise<World> => sharedAgent(ok, owner, persona, definition, 'reader');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-agents-access-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  //                                       owner writer reader publicReader chatter pending stranger
  const MATRIX: [string, (w: World) => Record<string, unknown>, number[]][] = [
    ['GetAgent', (w) => ({ _: 'GetAgent', agentId: w.agentId }), [200, 200, 200, 200, 200, 404, 404]],
    ['ListAgentCollaborators', (w) => ({ _: 'ListAgentCollaborators', agentId: w.agentId }), [200, 200, 200, 403, 403, 404, 404]],
    ['UpdateAgent', (w) => ({ _: 'UpdateAgent', agentId: w.agentId, definition: { ...definition, name: 'Renamed' } }), [200, 200, 403, 403, 403, 404, 404]],
    ['DeleteAgent', (w) => ({ _: 'DeleteAgent', agentId: w.agentId }), [200, 403, 403, 403, 403, 404, 404]],
    ['InviteAgentCollaborator', (w) => ({ _: 'InviteAgentCollaborator', agentId: w.agentId, accountId: idOf(newKey()), role: 'reader' }), [200, 403, 403, 403, 403, 404, 404]],
    ['RemoveAgentCollaborator', (w) => ({ _: 'RemoveAgentCollaborator', agentId: w.agentId, accountId: w.ids.reader }), [200, 403, 403, 403, 403, 404, 404]],
    ['SetAgentPublicRead', (w) => ({ _: 'SetAgentPublicRead', agentId: w.agentId, publicRead: true }), [200, 403, 403, 403, 403, 404, 404]],
    ['SetAgentPublicChat', (w) => ({ _: 'SetAgentPublicChat', agentId: w.agentId, publicChat: false }), [200, 403, 403, 403, 403, 404, 404]],
    // Only the account's own invitation: accepting again is a no-op; without one the agent is not found.
    ['AcceptAgentInvite', (w) => ({ _: 'AcceptAgentInvite', agentId: w.agentId }), [404, 200, 200, 404, 404, 200, 404]],
    ['DeclineAgentInvite', (w) => ({ _: 'DeclineAgentInvite', agentId: w.agentId }), [404, 404, 404, 404, 404, 200, 404]],
    ['ListAgents', () => ({ _: 'ListAgents' }), [200, 200, 200, 200, 200, 200, 200]],
    ['ListAgentInvites', () => ({ _: 'ListAgentInvites' }), [200, 200, 200, 200, 200, 200, 200]],
  ];

  const cells = MATRIX.flatMap(([action, build, statuses]) =>
    PERSONAS.map((persona, index) => ({ action, build, persona, status: statuses[index]! })),
  );

  it.each(cells)('$action as $persona → $status', async ({ build, persona, status }) => {
    const w = await world(persona);
    const answer = await call(build(w), w.keys[persona]);
    expect(answer.status, JSON.stringify(answer.value)).toBe(status);
    if (persona === 'pending' || persona === 'stranger') {
      // Whoever cannot see the agent learns nothing of it.
      if (status === 404) expect(answer.value).toEqual({ _: 'Error', message: 'Agent not found' });
    }
  });

  it.each(PERSONAS.map((persona, index) => ({ persona, role: ['owner', 'writer', 'reader', 'reader', 'chatter', null, null][index] })))(
    'GetAgent and ListAgents report accessRole $role to $persona',
    async ({ persona, role }) => {
      const w = await world(persona);
      const listed = (await ok({ _: 'ListAgents' }, w.keys[persona])) as { agents: { id: string; accessRole: string }[] };
      const mine = listed.agents.find((agent) => agent.id === w.agentId);
      // Public access never lists the agent; accepted collaborations do.
      expect(mine?.accessRole ?? null).toBe(['owner', 'writer', 'reader'].includes(persona) ? role : null);
      const got = await call({ _: 'GetAgent', agentId: w.agentId }, w.keys[persona]);
      if (role === null) expect(got.status).toBe(404);
      else expect((got.value as { agent: { accessRole: string } }).agent.accessRole).toBe(role);
    },
  );

  it('shows an invite without the agent’s contents until accepted, then lists the agent; declining removes it', async () => {
    const w = await world('pending');
    const invites = (await ok({ _: 'ListAgentInvites' }, w.keys.pending)) as { invites: Record<string, unknown>[] };
    expect(invites.invites).toEqual([
      { agentId: w.agentId, agentName: 'Helper', ownerAccountId: w.ids.owner, role: 'reader', createdAt: expect.any(Number), updatedAt: expect.any(Number) },
    ]);
    const collaborators = (await ok({ _: 'ListAgentCollaborators', agentId: w.agentId })) as { collaborators: { accountId: string; role: string; status: string }[] };
    expect(collaborators.collaborators.map(({ accountId, role, status }) => [accountId, role, status])).toEqual([
      [w.ids.owner, 'owner', 'accepted'],
      [w.ids.writer, 'writer', 'accepted'],
      [w.ids.reader, 'reader', 'accepted'],
      [w.ids.pending, 'reader', 'pending'],
    ]);
    // A member does not see pending invitations.
    const asReader = (await ok({ _: 'ListAgentCollaborators', agentId: w.agentId }, w.keys.reader)) as { collaborators: unknown[] };
    expect(asReader.collaborators).toHaveLength(3);

    const accepted = (await ok({ _: 'AcceptAgentInvite', agentId: w.agentId }, w.keys.pending)) as { agent: { id: string; accessRole: string } };
    expect(accepted.agent).toMatchObject({ id: w.agentId, accessRole: 'reader' });
    expect(((await ok({ _: 'ListAgentInvites' }, w.keys.pending)) as { invites: unknown[] }).invites).toEqual([]);

    const other = await world('pending');
    await ok({ _: 'DeclineAgentInvite', agentId: other.agentId }, other.keys.pending);
    expect(((await ok({ _: 'ListAgentInvites' }, other.keys.pending)) as { invites: unknown[] }).invites).toEqual([]);
    expect((await call({ _: 'AcceptAgentInvite', agentId: other.agentId }, other.keys.pending)).status).toBe(404);
  });

  it('removing a member takes its access away; re-inviting changes a role', async () => {
    const w = await world('reader');
    await ok({ _: 'InviteAgentCollaborator', agentId: w.agentId, accountId: w.ids.reader, role: 'writer' });
    expect((await call({ _: 'UpdateAgent', agentId: w.agentId, definition: { ...definition, name: 'By reader-now-writer' } }, w.keys.reader)).status).toBe(200);
    await ok({ _: 'RemoveAgentCollaborator', agentId: w.agentId, accountId: w.ids.reader });
    expect((await call({ _: 'GetAgent', agentId: w.agentId }, w.keys.reader)).status).toBe(404);
    expect((await call({ _: 'RemoveAgentCollaborator', agentId: w.agentId, accountId: w.ids.reader })).status).toBe(404);
  });

  it('public chat needs public read, and turning public read off clears it', async () => {
    const w = await world('stranger');
    const refused = await call({ _: 'SetAgentPublicChat', agentId: w.agentId, publicChat: true });
    expect(refused.status).toBe(400);
    expect(refused.value.message).toMatch(/public read/i);
    await ok({ _: 'SetAgentPublicRead', agentId: w.agentId, publicRead: true });
    expect(await ok({ _: 'SetAgentPublicChat', agentId: w.agentId, publicChat: true })).toMatchObject({ publicRead: true, publicChat: true });
    expect(await ok({ _: 'SetAgentPublicRead', agentId: w.agentId, publicRead: false })).toMatchObject({ publicRead: false, publicChat: false });
    const flags = (await ok({ _: 'ListAgentCollaborators', agentId: w.agentId })) as { publicRead: boolean; publicChat: boolean };
    expect(flags).toMatchObject({ publicRead: false, publicChat: false });
    expect((await call({ _: 'GetAgent', agentId: w.agentId }, w.keys.stranger)).status).toBe(404);
  });

  it('a writer may not change the signing-key grants (403); invites are reader or writer only', async () => {
    const w = await world('writer');
    const changed = await call({ _: 'UpdateAgent', agentId: w.agentId, definition: { ...definition, signingKeys: ['owner-key'] } }, w.keys.writer);
    expect(changed.status).toBe(403);
    expect(changed.value.message).toMatch(/signing keys/);
    const chatter = await call({ _: 'InviteAgentCollaborator', agentId: w.agentId, accountId: idOf(newKey()), role: 'chatter' });
    expect(chatter.status).toBe(400);
  });
});
