/**
 * The `account/…` change notifications, as a projection of the log: each change reaches every
 * account that can see it, and a rebuild gives the same notifications.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountChangeRow } from '../../src/projections/account-changes.projection.js';
import { ProjectionService } from '../../src/projections/projection-service.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from './signed.js';

describe('account change notifications', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-changes-'));
    ({ app, base } = await startTestServer(dir));
  });
  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ok = async (signer: KeyPair, action: Record<string, unknown>) => {
    const response = await post(base, await signedBody(signer, action));
    const value = decode(response.bytes) as Record<string, unknown>;
    expect(response.status, JSON.stringify(value)).toBe(200);
    return value;
  };

  it('tells the owner and every collaborator of each change, and survives a rebuild', async () => {
    const [owner, member] = [newKey(), newKey()];
    const [ownerId, memberId] = [owner, member].map((k) => principalToString(k.principal));
    await ok(owner, { _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
    const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' };
    const { agentId } = (await ok(owner, { _: 'CreateAgent', definition })) as { agentId: string };
    await ok(owner, { _: 'InviteAgentCollaborator', agentId, accountId: memberId, role: 'writer' });
    await ok(member, { _: 'AcceptAgentInvite', agentId });
    await ok(member, { _: 'UpdateAgent', agentId, definition: { ...definition, name: 'Renamed' } });
    await ok(owner, { _: 'InviteAgentCollaborator', agentId, accountId: memberId, role: 'reader' });
    await ok(owner, { _: 'RemoveAgentCollaborator', agentId, accountId: memberId });
    await ok(owner, { _: 'DeleteAgent', agentId });

    const projections = app.get(ProjectionService);
    const changes = () =>
      projections
        .reader('account_changes')
        .all<AccountChangeRow>('SELECT account_id, reason, agent_id FROM {changes} ORDER BY id')
        .map((r) => [r.account_id === ownerId ? 'owner' : r.account_id === memberId ? 'member' : r.account_id, r.reason, r.agent_id]);
    const expected = [
      ['owner', 'providers-changed', null],
      ['owner', 'agent-created', agentId],
      ['member', 'agent-invited', agentId],
      ['owner', 'agent-collaborators-changed', agentId],
      ['member', 'agent-shared', agentId],
      ['owner', 'agent-collaborators-changed', agentId],
      ['member', 'agent-updated', agentId],
      ['owner', 'agent-updated', agentId],
      // The member's role changed: what it may do with the agent changed, it is not a new invitation.
      ['member', 'agent-updated', agentId],
      ['owner', 'agent-collaborators-changed', agentId],
      ['member', 'agent-access-removed', agentId],
      ['owner', 'agent-collaborators-changed', agentId],
      ['owner', 'agent-deleted', agentId],
    ];
    // Notifications of one event come in audience order (by account id, random here): compare as sets.
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(changes())).toEqual(sorted(expected));
    expect(changes()[1]).toEqual(['owner', 'agent-created', agentId]);
    await projections.rebuild('account_changes');
    expect(sorted(changes())).toEqual(sorted(expected));
  });
});
