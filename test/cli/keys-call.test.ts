/** `seed-agents keys` and `seed-agents call`, run as a user would: the compiled bin against a real server. */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode, encode } from '@ipld/dag-cbor';
import type { INestApplication } from '@nestjs/common';
import * as blobs from '@seed-hypermedia/client/blobs';
import { CID } from 'multiformats/cid';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/server.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** Asynchronous, unlike cli.test.ts: the server answering `call` runs in this process's event loop. */
function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ status: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

describe('seed-agents keys', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-keys-'));
    env = { SEED_AGENTS_KEY_FILE: join(dir, 'nested', 'key.json') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates an owner-only key file, refuses to overwrite it without --force, and shows its principal', async () => {
    const created = await cli(env, 'keys', 'new');
    expect(created.status).toBe(0);
    const principal = created.stdout.trim();
    expect(principal).toMatch(/^z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    const path = join(dir, 'nested', 'key.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.principal).toBe(principal);
    expect(Buffer.from(file.seed, 'base64')).toHaveLength(32);

    const again = await cli(env, 'keys', 'new');
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/key file .*key\.json already exists; pass --force to replace it/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(file);

    const shown = await cli(env, 'keys', 'show');
    expect(shown).toMatchObject({ status: 0, stdout: `${principal}\n` });
    expect(shown.stdout + shown.stderr).not.toContain(file.seed);

    const replaced = await cli(env, 'keys', 'new', '--force');
    expect(replaced.status).toBe(0);
    expect(replaced.stdout.trim()).not.toBe(principal);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('takes --key-file over the environment, and says how to create a missing key', async () => {
    const other = join(dir, 'other.json');
    const created = await cli(env, 'keys', 'new', '--key-file', other);
    expect(created.status).toBe(0);
    expect((await cli(env, 'keys', 'show', '--key-file', other)).stdout).toBe(created.stdout);
    const missing = await cli(env, 'keys', 'show');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/no key file at .*nested\/key\.json; create one with: seed-agents keys new/);
  });
});

describe('seed-agents call', () => {
  let dir: string;
  let app: INestApplication;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-call-'));
    const server = await startServer(
      loadConfig({ SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: join(dir, 'data'), SEED_AGENTS_LOG_LEVEL: 'warn' }),
    );
    app = server.app;
    env = { SEED_AGENTS_KEY_FILE: join(dir, 'key.json'), SEED_AGENTS_URL: `http://127.0.0.1:${server.port}` };
    expect((await cli(env, 'keys', 'new')).status).toBe(0);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs an action with the key file and prints the answer as JSON', async () => {
    const result = await cli(env, 'call', 'ListSigners', '{}');
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ status: 0, stdout: '{"_":"ListSignersResponse","signers":[]}\n' });
  });

  it('prints the server\'s refusal and exits 1', async () => {
    const result = await cli(env, 'call', 'NoSuchAction', '{}');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^seed-agents call NoSuchAction: .*NoSuchAction.* \(HTTP 400(, \w+)?\)\n$/);
  });

  it('says which server it could not reach and exits 1', async () => {
    // A port that was just free: nothing listens there, and unlike port 1 fetch does not block it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const result = await cli({ ...env, SEED_AGENTS_URL: `http://127.0.0.1:${port}` }, 'call', 'ListSigners');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `seed-agents call ListSigners: could not reach http://127.0.0.1:${port}/api/message: ` +
        `fetch failed (connect ECONNREFUSED 127.0.0.1:${port})\n`,
    );
  });

  it('refuses bad arguments before signing anything', async () => {
    const notJson = await cli(env, 'call', 'ListSigners', '{nope');
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toMatch(/call: the action fields are not valid JSON/);
    const badBytes = await cli(env, 'call', 'RegisterSigner', '{"capability": {"$bytes": "not base64!"}}');
    expect(badBytes.status).toBe(2);
    expect(badBytes.stderr).toMatch(/call: \{"\$bytes": …\} needs a padded base64 string, got "not base64!"/);
    const badAccount = await cli(env, 'call', 'ListSigners', '--account', 'z123');
    expect(badAccount.status).toBe(2);
    expect(badAccount.stderr).toMatch(/call: --account: Invalid principal "z123"/);
  });
});

describe('seed-agents call, against a server that echoes what it was sent', () => {
  let dir: string;
  let echo: Server;
  let env: NodeJS.ProcessEnv;
  const cid = CID.parse('bafyreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-call-echo-'));
    echo = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const envelope = decode(Buffer.concat(chunks)) as blobs.Blob & { account: Uint8Array; action: unknown };
        res.writeHead(200, { 'Content-Type': 'application/cbor' });
        res.end(
          encode({
            _: 'Echo',
            path: req.url ?? '',
            verified: blobs.verify(envelope),
            account: blobs.principalToString(envelope.account),
            action: envelope.action,
            cid,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as { port: number };
    env = { SEED_AGENTS_KEY_FILE: join(dir, 'key.json'), SEED_AGENTS_URL: `http://127.0.0.1:${port}` };
    expect((await cli(env, 'keys', 'new')).status).toBe(0);
  });
  afterAll(async () => {
    await new Promise((resolve) => echo.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends {"$bytes"} fields as bytes, signs for --account, and prints bytes and CIDs back as JSON', async () => {
    const account = blobs.principalToString(blobs.generateNobleKeyPair().principal);
    const result = await cli(
      env,
      'call',
      'RegisterSigner',
      '{"capability": {"$bytes": "AQID/w=="}, "label": "laptop", "list": [{"$bytes": ""}]}',
      '--account',
      account,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({
      _: 'Echo',
      path: '/api/message',
      verified: true,
      account,
      action: { _: 'RegisterSigner', capability: { $bytes: 'AQID/w==' }, label: 'laptop', list: [{ $bytes: '' }] },
      cid: cid.toString(),
    });
    expect(Math.abs(answer.action.ts - Date.now())).toBeLessThan(60_000);
  });

  it('takes --server over SEED_AGENTS_URL', async () => {
    const { SEED_AGENTS_URL: url, ...rest } = env;
    const result = await cli({ ...rest, SEED_AGENTS_URL: 'http://127.0.0.1:9' }, 'call', 'ListSigners', '--server', url!);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ _: 'Echo', action: { _: 'ListSigners' } });
  });
});
