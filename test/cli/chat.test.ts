/**
 * `seed-agents chat` as a user runs it after `npm start`: the compiled bin, a key file, a provider,
 * an agent — the reply streams to stdout; a model that cannot be reached is one line on stderr.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/scripted-model/scripted-model-server.js';
import { startTestServer } from '../gateway/signed.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ status: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('seed-agents chat', () => {
  let dir: string;
  let app: INestApplication;
  let model: ScriptedModelServer;
  let env: NodeJS.ProcessEnv;
  const call = async (action: string, fields: object) => {
    const result = await cli(env, 'call', action, JSON.stringify(fields));
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as Record<string, string>;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-chat-'));
    model = await startScriptedModelServer({ fallback: () => ({ chunks: ['Hello ', 'from ', 'the ', 'agent.'] }) });
    ({ app } = await startTestServer(join(dir, 'data'), { SEED_AGENTS_DISPATCH: 'on', SEED_AGENTS_PORT: '0' }));
    const port = (app.getHttpServer().address() as { port: number }).port;
    env = { SEED_AGENTS_KEY_FILE: join(dir, 'key.json'), SEED_AGENTS_URL: `http://127.0.0.1:${port}` };
    expect((await cli(env, 'keys', 'new')).status).toBe(0);
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams the agent’s reply to a message', async () => {
    await call('SetModelProvider', { name: 'scripted', provider: { type: 'custom', baseUrl: model.baseUrl } });
    const { agentId } = await call('CreateAgent', { definition: { name: 'Echo', systemPrompt: 'Be brief.', modelProvider: 'scripted', model: 'scripted-model' } });
    const chat = await cli(env, 'chat', '--agent', agentId!, 'Hi there');
    expect(chat.stderr).toMatch(/^session [0-9a-f-]{36}\n$/);
    expect(chat.stdout).toBe('Hello from the agent.\n');
    expect(chat.status).toBe(0);
    const turn = model.requests.find((r) => (r.body as { stream?: boolean } | undefined)?.stream);
    expect(JSON.stringify(turn!.body)).toContain('Hi there');
  });

  it('says in one line that the model could not be reached, with no stack trace', async () => {
    const closed = await closedPort();
    await call('SetModelProvider', { name: 'gone', provider: { type: 'custom', baseUrl: `http://127.0.0.1:${closed}/v1` } });
    const { agentId } = await call('CreateAgent', { definition: { name: 'Lost', systemPrompt: 'Be brief.', modelProvider: 'gone', model: 'm' } });
    const chat = await cli(env, 'chat', '--agent', agentId!, 'Anyone?');
    expect(chat.status).toBe(1);
    const lines = chat.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`error: Could not reach model provider "gone" at 127.0.0.1:${closed}: connection refused (ECONNREFUSED)`);
    expect(chat.stderr).not.toMatch(/\n\s+at /);
  }, 40_000);
});
