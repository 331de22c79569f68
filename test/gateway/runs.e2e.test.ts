/** The run actions over HTTP, signed as the Seed apps sign: GetRun, ListRuns, CancelRun, RetrySession. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunInfo } from '../../src/protocol/runs.js';
import { newKey, signedApi, startTestServer, type KeyPair } from './signed.js';

describe('runs', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  const owner = newKey();
  const reader = newKey();
  const stranger = newKey();
  let agentId: string;

  const call = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).call(action, signer);
  const ok = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).ok(action, signer);
  /** A session with one message: its turn stays queued, as this server claims no runs. */
  const queuedTurn = async () => {
    const { sessionId } = (await ok({ _: 'CreateSession', agentId })) as { sessionId: string };
    await ok({ _: 'MessageSession', sessionId, content: [{ type: 'text', text: 'Hello' }] });
    const { runs } = (await ok({ _: 'ListRuns', sessionId })) as { runs: RunInfo[] };
    return { sessionId, run: runs[0]! };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-runs-'));
    ({ app, base } = await startTestServer(dir));
    await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
    const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' };
    agentId = ((await ok({ _: 'CreateAgent', definition })) as { agentId: string }).agentId;
    await ok({ _: 'InviteAgentCollaborator', agentId, accountId: principalToString(reader.principal), role: 'reader' });
    await ok({ _: 'AcceptAgentInvite', agentId }, reader);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists and gets the run a message queued, by session, agent and tree', async () => {
    const { sessionId, run } = await queuedTurn();
    expect(run).toMatchObject({ account: principalToString(owner.principal), rootRunId: run.id, depth: 0, kind: 'agent', agentId, sessionId, origin: 'user', status: 'queued' });
    expect((await ok({ _: 'GetRun', runId: run.id })).run).toEqual(run);
    expect((await ok({ _: 'GetRun', runId: run.id }, reader)).run).toEqual(run);
    expect(((await ok({ _: 'ListRuns', rootRunId: run.id })) as { runs: RunInfo[] }).runs).toEqual([run]);
    const byAgent = ((await ok({ _: 'ListRuns', agentId, status: 'queued', limit: 0 })) as { runs: RunInfo[] }).runs;
    expect(byAgent).toHaveLength(1);
  });

  it('refuses a stranger as if the run did not exist, and a reader’s cancel', async () => {
    const { run } = await queuedTurn();
    expect(await call({ _: 'GetRun', runId: run.id }, stranger)).toEqual({ status: 404, value: { _: 'Error', message: 'Run not found' } });
    expect(await call({ _: 'CancelRun', runId: run.id }, stranger)).toEqual({ status: 404, value: { _: 'Error', message: 'Run not found' } });
    expect(await call({ _: 'CancelRun', runId: run.id }, reader)).toEqual({
      status: 403,
      value: { _: 'Error', message: 'Only the owner and writers may cancel runs; this account is a reader of the agent' },
    });
    expect((await ok({ _: 'GetRun', runId: run.id })).run).toMatchObject({ status: 'queued' });
  });

  it('cancels a run once; RetrySession then says what it needs', async () => {
    const { sessionId, run } = await queuedTurn();
    expect(await call({ _: 'RetrySession', sessionId })).toEqual({
      status: 409,
      value: { _: 'Error', message: 'The agent is working in this thread right now; RetrySession is accepted once its run has ended' },
    });
    expect(await ok({ _: 'CancelRun', runId: run.id })).toEqual({ _: 'CancelRunResponse', runId: run.id, canceled: true });
    expect(await ok({ _: 'CancelRun', runId: run.id })).toEqual({ _: 'CancelRunResponse', runId: run.id, canceled: false });
    expect((await ok({ _: 'GetRun', runId: run.id })).run).toMatchObject({ status: 'canceled', finishedAt: expect.any(Number) });
    expect(await call({ _: 'RetrySession', sessionId })).toEqual({
      status: 409,
      value: { _: 'Error', message: 'RetrySession re-runs a session whose latest run failed; its latest run canceled' },
    });
  });

  it('refuses ListRuns without exactly one selector, or with a bad status or limit', async () => {
    const { sessionId, run } = await queuedTurn();
    const refusal = async (action: Record<string, unknown>) => (await call({ _: 'ListRuns', ...action })).value.message;
    expect(await refusal({})).toBe('ListRuns needs exactly one of rootRunId, sessionId or agentId; got none');
    expect(await refusal({ sessionId, agentId })).toBe('ListRuns needs exactly one of rootRunId, sessionId or agentId; got sessionId and agentId');
    expect(await refusal({ rootRunId: run.id, status: 'done' })).toBe(
      'ListRuns.status must be one of queued, claimed, running, waiting, succeeded, failed, canceled; got "done"',
    );
    expect(await refusal({ agentId, limit: 'all' })).toBe('ListRuns.limit must be a number (it is clamped to 1–200), got "all"');
    expect(await refusal({ rootRunId: 'run-1' })).toBe('ListRuns.rootRunId must be a run id (a lower-case UUID), got "run-1"');
  });
});
