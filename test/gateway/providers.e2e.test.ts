/**
 * Secrets and model providers over HTTP, signed as the Seed apps sign: values go in and never come
 * out — not in answers, not in the log, not in the read models, not in an export.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode } from '@ipld/dag-cbor';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { collect } from '../store/helpers.js';
import { newKey, post, signedBody, type KeyPair, startTestServer } from './signed.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** A random 32-character value: distinctive enough that any copy of it in a file is found. */
const distinctive = () => randomBytes(24).toString('base64url');

/** A minimal OpenAI-compatible server: GET /v1/models for one bearer key. */
async function startModelServer(apiKey: string): Promise<{ server: Server; baseUrl: string; authorizations: (string | undefined)[] }> {
  const authorizations: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    response.setHeader('content-type', 'application/json');
    if (request.method !== 'GET' || request.url !== '/v1/models') {
      response.statusCode = 404;
      response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }));
      return;
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      response.statusCode = 401;
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    response.end(
      JSON.stringify({
        object: 'list',
        data: [
          { id: 'llama-3.1-8b', object: 'model', created: 1, owned_by: 'local' },
          { id: 'qwen-2.5-7b', object: 'model', created: 2, owned_by: 'local' },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, authorizations };
}

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

describe('secrets and model providers', () => {
  let dir: string;
  let app: INestApplication | null;
  let base: string;
  let account: KeyPair;
  let accountId: string;
  let models: Awaited<ReturnType<typeof startModelServer>>;
  let apiKey: string;

  const start = async () => {
    ({ app, base } = await startTestServer(dir));
  };
  const stop = async () => {
    await app?.close();
    app = null;
  };

  beforeAll(async () => {
    apiKey = `sk-${distinctive()}`;
    models = await startModelServer(apiKey);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => models.server.close(() => resolve()));
  });
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-providers-'));
    account = newKey();
    accountId = principalToString(account.principal);
    await start();
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (action: Record<string, unknown>, signer: KeyPair = account) => {
    const response = await post(base, await signedBody(signer, action, { account }));
    return { ...response, value: decode(response.bytes) as Record<string, unknown> };
  };
  const setSecret = (name: string, value: string, metadata?: Record<string, unknown>) =>
    call({ _: 'SetSecret', name, value: Buffer.from(value), ...(metadata ? { metadata } : {}) });
  const loggedTypes = async () => {
    const reader = new SqliteEventStore(join(dir, 'events.db'));
    try {
      return (await collect(reader.readAll())).map((e) => e.type);
    } finally {
      await reader.close();
    }
  };
  const storedSecrets = () => {
    const db = new Database(join(dir, 'secrets.db'), { readonly: true });
    try {
      return db.prepare('SELECT account_id, name FROM secrets ORDER BY name').all() as { account_id: string; name: string }[];
    } finally {
      db.close();
    }
  };

  it('SetSecret answers redacted: name, metadata and times, never the value', async () => {
    const value = distinctive();
    const result = await setSecret('openai-key', value, { kind: 'api-key', label: 'work' });
    expect(result.status).toBe(200);
    expect(result.value).toEqual({
      _: 'SetSecretResponse',
      secret: {
        id: expect.any(String),
        name: 'openai-key',
        metadata: { kind: 'api-key', label: 'work' },
        hasValue: true,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    expect(Buffer.from(result.bytes).includes(value)).toBe(false);

    const replaced = await setSecret('openai-key', distinctive());
    expect(replaced.value.secret).toMatchObject({ id: (result.value.secret as { id: string }).id, name: 'openai-key', hasValue: true });
    expect(replaced.value.secret).not.toHaveProperty('metadata');
    expect(storedSecrets()).toEqual([{ account_id: accountId, name: 'openai-key' }]);
  });

  it.each([
    ['a name that is not a slug', { name: 'my key', value: Buffer.from('v') }, /SetSecret.name must be a name of 1 to 128 characters — letters, digits, ".", "_" and "-"/],
    ['a name over 128 characters', { name: 'k'.repeat(129), value: Buffer.from('v') }, /SetSecret.name must be a name of 1 to 128 characters/],
    ['a value sent as text', { name: 'k', value: 'sk-plain-text' }, /^SetSecret.value must be bytes \(a CBOR byte string\), got a string$/],
    ['an empty value', { name: 'k', value: new Uint8Array(0) }, /SetSecret.value must be 1 to 65536 bytes \(64 KiB\), got 0/],
    ['a value over 64 KiB', { name: 'k', value: new Uint8Array(64 * 1024 + 1) }, /SetSecret.value must be 1 to 65536 bytes \(64 KiB\), got 65537/],
    ['metadata that is a list', { name: 'k', value: Buffer.from('v'), metadata: [1] }, /SetSecret.metadata must be a map \(a JSON object\), got a list/],
    ['metadata over 4 KiB', { name: 'k', value: Buffer.from('v'), metadata: { note: 'x'.repeat(4096) } }, /SetSecret.metadata is 4107 bytes as JSON; at most 4096 \(4 KiB\)/],
    ['metadata holding bytes', { name: 'k', value: Buffer.from('v'), metadata: { raw: new Uint8Array(2) } }, /SetSecret.metadata.raw is 2 bytes; only JSON values are accepted/],
    ['a client request id', { name: 'k', value: Buffer.from('v'), clientRequestId: 'r1' }, /Unknown field "clientRequestId" in SetSecret; accepted fields: name, value, metadata/],
  ])('refuses %s, and neither logs nor stores anything', async (_, fields, message) => {
    const result = await call({ _: 'SetSecret', ...fields });
    expect(result.status).toBe(400);
    expect(result.value).toEqual({ _: 'Error', message: expect.stringMatching(message) });
    expect((await loggedTypes()).filter((t) => t.startsWith('Secret'))).toEqual([]);
    expect(storedSecrets()).toEqual([]);
  });

  it('SetModelProvider checks the secrets it references and the config it is given; ListModelProviders is redacted', async () => {
    const missing = await call({ _: 'SetModelProvider', name: 'main', provider: { type: 'openai', secretRefs: { apiKey: 'openai-key' } } });
    expect(missing.status).toBe(400);
    expect(missing.value.message).toBe(
      'Secret "openai-key" (provider.secretRefs.apiKey) does not exist for this account; store it first with SetSecret (it has no secrets)',
    );
    for (const [provider, message] of [
      [{ type: 'openai', secretRefs: { apiKey: 'k' }, temperature: 1 }, /SetModelProvider.provider has unknown field "temperature"; accepted: type, baseUrl, authMode, secretRefs, modelDefaults/],
      [{ type: 'mistral' }, /SetModelProvider.provider.type must be one of openai, anthropic, google, openrouter, deepseek, groq, xai, ollama, custom; got "mistral"/],
      [{ type: 'openai' }, /secretRefs.apiKey is required for type openai/],
      [{ type: 'custom' }, /SetModelProvider.provider.baseUrl is required for type custom/],
      [{ type: 'custom', baseUrl: 'ftp://host/v1' }, /baseUrl must be an http:\/\/ or https:\/\/ URL/],
      [{ type: 'custom', baseUrl: 'http://user:pw@host/v1' }, /must not carry credentials, a query or a fragment/],
      [{ type: 'openai', baseUrl: 'http://evil.example/v1', secretRefs: { apiKey: 'k' } }, /baseUrl of a openai provider is always https:\/\/api.openai.com\/v1/],
      [{ type: 'openai', authMode: 'subscription', secretRefs: { apiKey: 'k' } }, /authMode "subscription" needs the provider sign-in flow/],
      [{ type: 'custom', baseUrl: models.baseUrl, secretRefs: { oauth: 'k' } }, /secretRefs has unknown role "oauth"; accepted: apiKey/],
      [{ type: 'ollama', modelDefaults: { big: 'x'.repeat(16 * 1024) } }, /modelDefaults is \d+ bytes as JSON; at most 16384 \(16 KiB\)/],
    ] as const) {
      const refused = await call({ _: 'SetModelProvider', name: 'main', provider });
      expect(refused.status, JSON.stringify(provider).slice(0, 80)).toBe(400);
      expect(refused.value.message).toMatch(message);
    }
    expect((await loggedTypes()).filter((t) => t.startsWith('ModelProvider'))).toEqual([]);

    const value = distinctive();
    await setSecret('openai-key', value);
    const set = await call({
      _: 'SetModelProvider',
      name: 'main',
      provider: { type: 'openai', secretRefs: { apiKey: 'openai-key' }, modelDefaults: { temperature: 0.2 } },
    });
    expect(set.status).toBe(200);
    const redacted = {
      id: expect.any(String),
      name: 'main',
      type: 'openai',
      hasSecrets: true,
      authMode: 'api-key',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    };
    expect(set.value).toEqual({ _: 'SetModelProviderResponse', provider: redacted });
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });

    const list = await call({ _: 'ListModelProviders' });
    expect(list.value).toEqual({
      _: 'ListModelProvidersResponse',
      providers: [
        { ...redacted, name: 'local', type: 'ollama', hasSecrets: false, baseUrl: 'http://127.0.0.1:11434/v1' },
        redacted,
      ],
    });
    const text = Buffer.from(list.bytes).toString('latin1');
    for (const hidden of ['openai-key', 'secretRefs', 'modelDefaults', value]) expect(text).not.toContain(hidden);
    // Another account sees none of them.
    const stranger = newKey();
    const theirs = await post(base, await signedBody(stranger, { _: 'ListModelProviders' }));
    expect(decode(theirs.bytes)).toEqual({ _: 'ListModelProvidersResponse', providers: [] });
  });

  it('ListProviderModels asks the provider’s /models with the decrypted key, and explains every failure', async () => {
    await setSecret('local-key', apiKey);
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'local-key' } } });
    const seen = models.authorizations.length;
    const listed = await call({ _: 'ListProviderModels', provider: 'local' });
    expect(listed.status).toBe(200);
    expect(listed.value).toEqual({
      _: 'ListProviderModelsResponse',
      models: [
        { id: 'llama-3.1-8b', name: 'llama-3.1-8b' },
        { id: 'qwen-2.5-7b', name: 'qwen-2.5-7b' },
      ],
    });
    expect(models.authorizations.slice(seen)).toEqual([`Bearer ${apiKey}`]);

    const unknown = await call({ _: 'ListProviderModels', provider: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.value.message).toBe('Model provider "nope" not found for this account; ListModelProviders lists its providers');

    const wrongKey = distinctive();
    await setSecret('wrong-key', wrongKey);
    await call({ _: 'SetModelProvider', name: 'wrong', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'wrong-key' } } });
    const rejected = await call({ _: 'ListProviderModels', provider: 'wrong' });
    expect(rejected.status).toBe(502);
    expect(rejected.value).toEqual({
      _: 'Error',
      message: `Custom request failed: HTTP 401 from ${new URL(models.baseUrl).host} (Incorrect API key provided)`,
      code: 'provider_error',
    });

    const port = await closedPort();
    await call({ _: 'SetModelProvider', name: 'down', provider: { type: 'custom', baseUrl: `http://127.0.0.1:${port}/v1` } });
    const down = await call({ _: 'ListProviderModels', provider: 'down' });
    expect(down.status).toBe(502);
    expect(down.value).toEqual({
      _: 'Error',
      message: `Could not reach model provider "down" at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
      code: 'provider_unreachable',
    });

    // The master key file and the secret store outlive the process.
    await stop();
    await start();
    expect((await call({ _: 'ListProviderModels', provider: 'local' })).status).toBe(200);
  });

  it('refuses a key that cannot be an HTTP header without quoting it, and never follows a redirect to another host', async () => {
    const broken = `${distinctive()}\n${distinctive()}`;
    await setSecret('pasted', broken);
    await call({ _: 'SetModelProvider', name: 'pasted', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'pasted' } } });
    const refused = await call({ _: 'ListProviderModels', provider: 'pasted' });
    expect(refused.status).toBe(400);
    expect(refused.value.message).toMatch(/is not a usable API key: it must be printable ASCII/);
    expect(JSON.stringify(refused.value)).not.toContain(broken.split('\n')[0]);

    const redirecting = createServer((_request, response) => {
      response.statusCode = 302;
      response.setHeader('location', `${models.baseUrl}/models`);
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const port = (redirecting.address() as AddressInfo).port;
    try {
      await setSecret('local-key', apiKey);
      await call({ _: 'SetModelProvider', name: 'hop', provider: { type: 'custom', baseUrl: `http://127.0.0.1:${port}/v1`, secretRefs: { apiKey: 'local-key' } } });
      const seen = models.authorizations.length;
      const hopped = await call({ _: 'ListProviderModels', provider: 'hop' });
      expect(hopped.status).toBe(502);
      expect(hopped.value.message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}`));
      // The other host was never asked.
      expect(models.authorizations.length).toBe(seen);
    } finally {
      redirecting.close();
    }
  });

  it('sending a secret again restores a value the store lost, though the log needs no new event', async () => {
    await setSecret('local-key', apiKey);
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'local-key' } } });
    // As after restoring an older secrets.db: the log names a value the store no longer has.
    const store = new Database(join(dir, 'secrets.db'));
    store.prepare('DELETE FROM secrets').run();
    store.close();
    const lost = await call({ _: 'ListProviderModels', provider: 'local' });
    expect(lost.status).toBe(409);
    expect(lost.value.code).toBe('secret_unavailable');
    expect((await setSecret('local-key', apiKey)).status).toBe(200);
    expect((await call({ _: 'ListProviderModels', provider: 'local' })).status).toBe(200);
  });

  it('DeleteModelProvider deletes the secrets only it referenced — a shared one survives — and erases their values', async () => {
    await setSecret('shared-key', apiKey);
    await setSecret('own-key', distinctive());
    await call({ _: 'SetModelProvider', name: 'a', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'shared-key' } } });
    await call({ _: 'SetModelProvider', name: 'b', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'shared-key' } } });
    await call({ _: 'SetModelProvider', name: 'c', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'own-key' } } });

    const missing = await call({ _: 'DeleteModelProvider', name: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.value.message).toBe('Model provider "nope" not found for this account (its providers: a, b, c)');

    expect((await call({ _: 'DeleteModelProvider', name: 'c' })).value).toEqual({ _: 'DeleteModelProviderResponse', name: 'c' });
    expect((await call({ _: 'DeleteModelProvider', name: 'a' })).value).toEqual({ _: 'DeleteModelProviderResponse', name: 'a' });
    expect(storedSecrets()).toEqual([{ account_id: accountId, name: 'shared-key' }]);
    expect((await call({ _: 'ListProviderModels', provider: 'b' })).status).toBe(200);
    const providers = (await call({ _: 'ListModelProviders' })).value.providers as { name: string }[];
    expect(providers.map((p) => p.name)).toEqual(['b']);

    // The deleted secret is gone for the account too: a provider can no longer refer to it.
    const stale = await call({ _: 'SetModelProvider', name: 'c', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'own-key' } } });
    expect(stale.status).toBe(400);
    expect(stale.value.message).toMatch(/Secret "own-key" .* does not exist for this account; .*\(its secrets: shared-key\)/);

    await call({ _: 'DeleteModelProvider', name: 'b' });
    expect(storedSecrets()).toEqual([]);
    const types = await loggedTypes();
    expect(types.filter((t) => t === 'SecretDeleted')).toHaveLength(2);
    expect(types.filter((t) => t === 'ModelProviderDeleted')).toHaveLength(3);
  });

  it('no secret value appears in the log, the read models, or an export — and a deleted one not even in the secret store', async () => {
    const values = { alpha: distinctive(), beta: distinctive(), gamma: distinctive() };
    for (const [name, value] of Object.entries(values)) await setSecret(name, value, { kind: 'api-key' });
    await setSecret('alpha', (values.alpha = distinctive()));
    await setSecret('local-key', apiKey);
    await call({ _: 'SetModelProvider', name: 'local', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'local-key' } } });
    await call({ _: 'SetModelProvider', name: 'gamma', provider: { type: 'custom', baseUrl: models.baseUrl, secretRefs: { apiKey: 'gamma' } } });
    expect((await call({ _: 'ListProviderModels', provider: 'local' })).status).toBe(200);
    const gammaRow = () => {
      const db = new Database(join(dir, 'secrets.db'), { readonly: true });
      try {
        return db.prepare("SELECT wrapped_key, ciphertext FROM secrets WHERE name = 'gamma'").get() as
          | { wrapped_key: Buffer; ciphertext: Buffer }
          | undefined;
      } finally {
        db.close();
      }
    };
    const gamma = gammaRow()!;
    expect((await call({ _: 'DeleteModelProvider', name: 'gamma' })).status).toBe(200);
    expect(gammaRow()).toBeUndefined();

    const secrets = [...Object.values(values), apiKey];
    const forms = (value: string) => {
      const bytes = Buffer.from(value);
      return [value, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
    };
    const assertClean = (label: string, content: Buffer) => {
      for (const secret of secrets) {
        for (const form of forms(secret)) expect(content.includes(form), `${label} holds ${form}`).toBe(false);
      }
    };
    const scan = (files: string[]) => {
      for (const file of files) if (existsSync(join(dir, file))) assertClean(file, readFileSync(join(dir, file)));
    };
    const exported = spawnSync(process.execPath, [BIN, 'export'], { env: { ...process.env, SEED_AGENTS_DATA_DIR: dir }, encoding: 'utf8' });
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/"type":"SecretSet"/);
    assertClean('the export', Buffer.from(exported.stdout));
    // The scan reads what the log holds: each SecretSet's fingerprint is there to be found.
    const fingerprints = [...exported.stdout.matchAll(/"fingerprint":"([^"]+)"/g)].map((m) => m[1]!);
    expect(fingerprints).toHaveLength(5);
    const logBytes = Buffer.concat(['events.db', 'events.db-wal'].map((f) => readFileSync(join(dir, f))));
    for (const fingerprint of fingerprints) expect(logBytes.includes(fingerprint)).toBe(true);

    // While running, the WALs hold the latest writes; after a clean stop, the checkpointed files.
    const files = ['events.db', 'events.db-wal', 'readmodels.db', 'readmodels.db-wal', 'secrets.db', 'secrets.db-journal'];
    expect(existsSync(join(dir, 'events.db-wal'))).toBe(true);
    scan(files);
    await stop();
    scan(files);
    // The deleted secret's sealed key and value were overwritten in place, not merely unlinked.
    const store = readFileSync(join(dir, 'secrets.db'));
    expect(store.includes(gamma.ciphertext)).toBe(false);
    expect(store.includes(gamma.wrapped_key)).toBe(false);
  });
});
