/** The signed action gateway over HTTP, as the Seed apps call it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import { createCapability, principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { collect } from '../store/helpers.js';
import { newKey, post, signedBody, type KeyPair, startTestServer } from './signed.js';

describe('POST /api/message', () => {
  let dir: string;
  let app: INestApplication | null;
  let base: string;

  const start = async () => {
    ({ app, base } = await startTestServer(dir));
  };
  const stop = async () => {
    await app?.close();
    app = null;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-gateway-'));
    await start();
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (signer: KeyPair, action: Record<string, unknown>, options?: Parameters<typeof signedBody>[2]) => {
    const response = await post(base, await signedBody(signer, action, options));
    return { ...response, value: decode(response.bytes) as Record<string, unknown> };
  };

  async function capabilityFor(account: KeyPair, delegate: KeyPair, label = 'laptop'): Promise<Uint8Array> {
    return (await createCapability(account, delegate.principal, 'AGENT', Date.now(), { label })).data;
  }

  it('answers a signed action in DAG-CBOR, with the protocol header and CORS', async () => {
    const account = newKey();
    const result = await call(account, { _: 'ListSigners' });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/application\/cbor/);
    expect(result.headers.get('x-agents-protocol')).toBe('3');
    expect(result.value).toEqual({ _: 'ListSignersResponse', signers: [] });
    const preflight = await fetch(`${base}/agents/api/message`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeTruthy();
  });

  it('serves version and health on both prefixes', async () => {
    for (const prefix of ['', '/agents']) {
      const version = await (await fetch(`${base}${prefix}/api/version`)).json();
      expect(version).toMatchObject({ protocol: 3, minClientProtocol: 1, name: 'seed-agents' });
      const health = await fetch(`${base}${prefix}/api/health`);
      expect(health.headers.get('x-agents-protocol')).toBe('3');
      expect(await health.json()).toMatchObject({ status: 'ok', codeExec: false, webTools: false, subscriptionAuth: false });
    }
  });

  it.each([
    ['a JSON body', () => post(base, '{"_":"ListSigners"}', 'application/json'), 415, /Content-Type must be application\/cbor/],
    ['bytes that are not CBOR', () => post(base, new Uint8Array([0xff, 0x00, 0x13])), 400, /^Invalid CBOR request/],
    ['a body over 16 MiB', () => post(base, new Uint8Array(16 * 1024 * 1024 + 1)), 413, /larger than 16777216 bytes/],
  ])('refuses %s', async (_, send, status, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(decode(response.bytes)).toEqual({ _: 'Error', message: expect.stringMatching(message) });
  });

  it('refuses a CBOR request with an empty body as invalid CBOR', async () => {
    const response = await post(base, new Uint8Array(0));
    expect(response.status).toBe(400);
    expect(decode(response.bytes)).toEqual({ _: 'Error', message: expect.stringMatching(/^Invalid CBOR request/) });
  });

  it('refuses fields an action does not accept', async () => {
    const result = await call(newKey(), { _: 'ListSigners', clientRequestId: 'x' });
    expect(result.status).toBe(400);
    expect(result.value.message).toBe('Unknown field "clientRequestId" in ListSigners; accepted fields: none besides _ and ts');
  });

  it('records nothing under an account for a RegisterSigner its capability does not authorize', async () => {
    const [account, stranger] = [newKey(), newKey()];
    const junk = await call(stranger, { _: 'RegisterSigner', capability: new Uint8Array([1, 2, 3]), clientRequestId: 'req-1' }, { account });
    expect(junk.status).toBe(400);
    const foreign = await capabilityFor(newKey(), stranger);
    const refused = await call(stranger, { _: 'RegisterSigner', capability: foreign, clientRequestId: 'req-1' }, { account });
    expect(refused.status).toBe(403);
    const reader = new SqliteEventStore(join(dir, 'events.db'));
    expect(await reader.headPosition()).toBeNull();
    await reader.close();
    // The account's own request with that id is not blocked by the stranger's attempts.
    const delegate = newKey();
    const own = await call(delegate, { _: 'RegisterSigner', capability: await capabilityFor(account, delegate), clientRequestId: 'req-1' }, { account });
    expect(own.status).toBe(200);
  });

  it('refuses an unknown action, naming the accepted ones', async () => {
    const result = await call(newKey(), { _: 'Frobnicate' });
    expect(result.status).toBe(400);
    expect(result.value.message).toMatch(/^Unknown action "Frobnicate"; this server accepts: \w+(, \w+)*$/);
    expect(String(result.value.message).split(': ')[1]!.split(', ')).toEqual(expect.arrayContaining(['ListSigners', 'RegisterSigner', 'MessageSession']));
  });

  it('authorizes a delegated signer only after the account’s capability is registered', async () => {
    const account = newKey();
    const delegate = newKey();
    const before = await call(delegate, { _: 'ListSigners' }, { account });
    expect(before.status).toBe(401);
    expect(before.value.message).toMatch(/^Signer is not authorized for account/);

    const capability = await capabilityFor(account, delegate);
    const registered = await call(delegate, { _: 'RegisterSigner', capability }, { account });
    expect(registered.status).toBe(200);
    expect(registered.value).toMatchObject({ _: 'RegisterSignerResponse', signer: principalToString(delegate.principal), role: 'AGENT' });

    const after = await call(delegate, { _: 'ListSigners' }, { account });
    expect(after.status).toBe(200);
    expect(after.value.signers).toEqual([
      expect.objectContaining({ signer: principalToString(delegate.principal), role: 'AGENT', label: 'laptop' }),
    ]);
  });

  it('refuses a capability issued by another account, or to another key', async () => {
    const [account, other, delegate] = [newKey(), newKey(), newKey()];
    const foreign = await call(delegate, { _: 'RegisterSigner', capability: await capabilityFor(other, delegate) }, { account });
    expect(foreign.status).toBe(403);
    expect(foreign.value.message).toMatch(/Capability was issued by .*; only the account .* can authorize signers/);
    const elsewhere = await call(delegate, { _: 'RegisterSigner', capability: await capabilityFor(account, other) }, { account });
    expect(elsewhere.status).toBe(403);
    expect((await call(delegate, { _: 'ListSigners' }, { account })).status).toBe(401);
  });

  it('replays the first response to a repeated client request id, across a restart, and refuses a changed payload', async () => {
    const account = newKey();
    const delegate = newKey();
    const capability = await capabilityFor(account, delegate);
    const action = { _: 'RegisterSigner', capability, clientRequestId: 'req-1' };
    const [first, racing] = await Promise.all([call(delegate, action, { account }), call(delegate, action, { account })]);
    expect(first.status).toBe(200);
    expect(Buffer.from(racing.bytes)).toEqual(Buffer.from(first.bytes));
    // One effect: one claim ran the action, and it appended once.
    const reader = new SqliteEventStore(join(dir, 'events.db'));
    const types = (await collect(reader.readAll())).map((e) => e.type);
    await reader.close();
    expect(types.filter((t) => t === 'IdempotencyKeyClaimed')).toHaveLength(1);
    expect(types.filter((t) => t === 'SignerAuthorized')).toHaveLength(1);

    await stop();
    await start();
    const replayed = await call(delegate, action, { account });
    expect(replayed.status).toBe(200);
    expect(Buffer.from(replayed.bytes)).toEqual(Buffer.from(first.bytes));

    const changed = await call(delegate, { ...action, capability: await capabilityFor(account, delegate, 'phone') }, { account });
    expect(changed.status).toBe(409);
    expect(changed.value.message).toBe('Client request ID payload mismatch');
  });
});
