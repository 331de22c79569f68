/** Agents over HTTP, signed as the Seed apps sign: the owner's lifecycle, strangers, idempotency, protocol 1. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import { newKey, post, signedBody, type KeyPair, startTestServer } from './signed.js';

describe('agents', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let ownerId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-agents-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    ownerId = principalToString(owner.principal);
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
  });
  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** As a current client, unless `protocol` says otherwise (null: the field left out, which means 1). */
  const call = async (action: Record<string, unknown>, signer: KeyPair = owner, protocol: number | null = AGENTS_PROTOCOL_VERSION) => {
    const response = await post(base, await signedBody(signer, action, protocol === null ? {} : { protocol }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown> };
  };
  const definition = { name: 'Helper', systemPrompt: '# Role\n\nYou are **helpful**.', modelProvider: 'local', model: 'llama-3.1-8b' };
  const createAgent = async (def: Record<string, unknown> = definition, extra: Record<string, unknown> = {}) => {
    const created = await call({ _: 'CreateAgent', definition: def, ...extra });
    expect(created.status).toBe(200);
    return (created.value as { agentId: string }).agentId;
  };

  it('creates, gets, lists, updates and deletes an agent; a deleted agent is not found', async () => {
    const agentId = await createAgent();
    expect(agentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const got = await call({ _: 'GetAgent', agentId });
    expect(got.status).toBe(200);
    expect(got.value).toEqual({
      _: 'GetAgentResponse',
      agent: {
        id: agentId,
        account: ownerId,
        status: 'idle',
        name: 'Helper',
        definition,
        systemPromptBlocks: [
          {
            block: { id: expect.any(String), type: 'Heading', text: 'Role', annotations: [], attributes: { childrenType: 'Group' } },
            children: [
              {
                block: {
                  id: expect.any(String),
                  type: 'Paragraph',
                  text: 'You are helpful.',
                  annotations: [{ type: 'Bold', starts: [8], ends: [15] }],
                  attributes: {},
                },
              },
            ],
          },
        ],
        accessRole: 'owner',
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
      sessionCount: 0,
    });

    const second = await createAgent({ ...definition, name: 'Second' });
    const listed = await call({ _: 'ListAgents' });
    expect((listed.value.agents as { id: string }[]).map((a) => a.id)).toEqual([second, agentId]);

    const updated = await call({ _: 'UpdateAgent', agentId, definition: { ...definition, name: 'Renamed', reasoningLevel: 'low' } });
    expect(updated.status).toBe(200);
    expect(updated.value.agent).toMatchObject({ id: agentId, name: 'Renamed', definition: { reasoningLevel: 'low' }, accessRole: 'owner' });
    const relisted = await call({ _: 'ListAgents' });
    expect((relisted.value.agents as { id: string; name: string }[]).map((a) => [a.id, a.name])).toEqual([
      [agentId, 'Renamed'],
      [second, 'Second'],
    ]);
    expect(relisted.value.agents).toContainEqual(updated.value.agent);

    expect(await call({ _: 'DeleteAgent', agentId })).toEqual({ status: 200, value: { _: 'DeleteAgentResponse', agentId } });
    expect(await call({ _: 'GetAgent', agentId })).toEqual({ status: 404, value: { _: 'Error', message: 'Agent not found' } });
    expect(await call({ _: 'DeleteAgent', agentId })).toEqual({ status: 404, value: { _: 'Error', message: 'Agent not found' } });
    expect(((await call({ _: 'ListAgents' })).value.agents as { id: string }[]).map((a) => a.id)).toEqual([second]);
  });

  it('refuses a bad definition with the spec’s message, and creates nothing', async () => {
    expect(await call({ _: 'CreateAgent', definition: { ...definition, name: '' } })).toEqual({
      status: 400,
      value: { _: 'Error', message: 'Agent name is required' },
    });
    const missing = await call({ _: 'CreateAgent', definition: { ...definition, modelProvider: 'nope' } });
    expect(missing.status).toBe(400);
    expect(missing.value.message).toMatch(/^Model provider "nope" \(definition.modelProvider\) does not exist for this account/);
    const tooLarge = await call({ _: 'CreateAgent', definition: { ...definition, tools: ['x'.repeat(129)] } });
    expect([tooLarge.status, tooLarge.value.message]).toEqual([400, expect.stringMatching(/^Tool name is too large/)]);
    expect((await call({ _: 'ListAgents' })).value).toEqual({ _: 'ListAgentsResponse', agents: [] });
  });

  it('answers a stranger "Agent not found" for an agent it does not own, and lists it nothing', async () => {
    const agentId = await createAgent();
    const stranger = newKey();
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } }, stranger);
    const notFound = { status: 404, value: { _: 'Error', message: 'Agent not found' } };
    expect(await call({ _: 'GetAgent', agentId }, stranger)).toEqual(notFound);
    expect(await call({ _: 'UpdateAgent', agentId, definition }, stranger)).toEqual(notFound);
    expect(await call({ _: 'DeleteAgent', agentId }, stranger)).toEqual(notFound);
    expect((await call({ _: 'ListAgents' }, stranger)).value).toEqual({ _: 'ListAgentsResponse', agents: [] });
    expect((await call({ _: 'GetAgent', agentId })).value.agent).toMatchObject({ name: 'Helper' });
  });

  it('creates one agent for one clientRequestId, however often it is sent', async () => {
    const first = await createAgent(definition, { clientRequestId: 'create-helper-1' });
    const again = await createAgent(definition, { clientRequestId: 'create-helper-1' });
    expect(again).toBe(first);
    expect(((await call({ _: 'ListAgents' })).value.agents as unknown[]).length).toBe(1);
    const other = await createAgent(definition, { clientRequestId: 'create-helper-2' });
    expect(other).not.toBe(first);
  });

  it('answers a protocol 1 client GetAgent with sessions, not sessionCount', async () => {
    const agentId = await createAgent();
    for (const protocol of [1, null]) {
      const old = await call({ _: 'GetAgent', agentId }, owner, protocol);
      expect(old.status).toBe(200);
      expect(old.value).toMatchObject({ _: 'GetAgentResponse', agent: { id: agentId }, sessions: [] });
      expect(old.value).not.toHaveProperty('sessionCount');
    }
    expect((await call({ _: 'GetAgent', agentId }, owner, 2)).value).toMatchObject({ sessionCount: 0 });
  });

  it('answers ListAgents and GetAgent identically after the agents projection is rebuilt from the log', async () => {
    const kept = await createAgent();
    const updated = await createAgent({ ...definition, name: 'Draft' });
    const deleted = await createAgent({ ...definition, name: 'Gone' });
    await call({ _: 'UpdateAgent', agentId: updated, definition: { ...definition, name: 'Final', tools: ['search'] } });
    await call({ _: 'DeleteAgent', agentId: deleted });
    const answers = async () => [
      await call({ _: 'ListAgents' }),
      ...(await Promise.all([kept, updated, deleted].map((agentId) => call({ _: 'GetAgent', agentId })))),
    ];
    const before = await answers();
    expect(before.map((a) => a.status)).toEqual([200, 200, 200, 404]);

    await app.get(ProjectionService).rebuild('agents');
    expect(await answers()).toEqual(before);
  });
});
