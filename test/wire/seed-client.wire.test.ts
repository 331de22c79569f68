/**
 * The server must accept exactly what the Seed apps' own client library produces (NOTES.md, "The
 * real Seed client"): envelopes and Capability blobs here are signed by @seed-hypermedia/client.
 */
import { describe, expect, it } from 'vitest';
import * as dagCbor from '@ipld/dag-cbor';
import {
  createCapability,
  encode as encodeBlob,
  generateNobleKeyPair,
  principalToString as seedPrincipalToString,
  sign,
  type Blob,
  type NobleKeyPair,
} from '@seed-hypermedia/client/blobs';
import { ApiError } from '../../src/protocol/api-error.js';
import { verifyCapability } from '../../src/signing/capability.js';
import { Ed25519Verifier } from '../../src/signing/ed25519-verifier.js';
import { verifyEnvelope, type VerifyEnvelopeDeps } from '../../src/gateway/envelope/verify-envelope.js';
import { principalFromString, principalToString } from '../../src/protocol/principal.js';

const NOW = Date.now();
const SIX_MINUTES = 6 * 60 * 1000;
const verifier = new Ed25519Verifier();
const deps: VerifyEnvelopeDeps = { verifier, now: () => NOW, isAuthorized: () => false };
const INVALID_SIGNATURE =
  "Invalid signature: sig is not the signer's Ed25519 signature over the DAG-CBOR envelope with sig set to 64 zero bytes";

/**
 * The library's Blob type demands a top-level `ts`, which an AgentsAction envelope does not have
 * (its ts is inside the action): the apps cast in the same way. blobs.sign itself only zeroes
 * `sig`, encodes and signs, so the missing field changes nothing at runtime.
 */
async function signWithSeedClient(signer: NobleKeyPair, envelope: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await sign(signer, envelope as unknown as Blob)) as unknown as Record<string, unknown>;
}

function listSigners(kp: NobleKeyPair, ts = NOW): Record<string, unknown> {
  return {
    type: 'AgentsAction',
    signer: kp.principal,
    sig: new Uint8Array(64),
    account: kp.principal,
    action: { _: 'ListSigners', ts },
  };
}

async function refusal(bytes: Uint8Array): Promise<ApiError> {
  const outcome = await verifyEnvelope(bytes, deps).then(
    () => new Error('expected a refusal'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof ApiError)) throw outcome;
  return outcome;
}

describe('envelopes signed by @seed-hypermedia/client', () => {
  it('are accepted, and the library and we agree on the principal string and the action CID', async () => {
    const kp = generateNobleKeyPair();
    const signed = await signWithSeedClient(kp, listSigners(kp));
    const bytes = dagCbor.encode(signed);

    const verified = await verifyEnvelope(bytes, deps);
    expect(verified.account).toBe(seedPrincipalToString(kp.principal));
    expect(verified.signer).toBe(seedPrincipalToString(kp.principal));
    expect(principalToString(kp.principal)).toBe(seedPrincipalToString(kp.principal));
    expect(principalFromString(verified.signer)).toEqual(kp.principal);
    expect(verified.action).toEqual({ _: 'ListSigners', ts: NOW });
    expect(verified.protocol).toBe(1);

    // The library bundles its own @ipld/dag-cbor 9 and multiformats 13; its encoding must be ours.
    const theirs = encodeBlob(signed as unknown as Blob);
    expect(Buffer.compare(theirs.data, bytes)).toBe(0);
    expect(theirs.cid.toString()).toBe(verified.actionCid);
  });

  it('are accepted with a declared protocol and a delegated signer the gateway authorizes', async () => {
    const account = generateNobleKeyPair();
    const agent = generateNobleKeyPair();
    const signed = await signWithSeedClient(agent, { ...listSigners(agent), account: account.principal, protocol: 2 });
    const verified = await verifyEnvelope(dagCbor.encode(signed), { ...deps, isAuthorized: () => true });
    expect([verified.account, verified.signer, verified.protocol]).toEqual([
      seedPrincipalToString(account.principal),
      seedPrincipalToString(agent.principal),
      2,
    ]);
  });

  it('are refused when a byte of the action was changed', async () => {
    const kp = generateNobleKeyPair();
    const bytes = dagCbor.encode(await signWithSeedClient(kp, listSigners(kp)));
    const name = Buffer.from(bytes).indexOf('ListSigners');
    expect(name).toBeGreaterThan(0);
    bytes[name + 'ListSigners'.length - 1] = 'z'.charCodeAt(0);

    const error = await refusal(bytes);
    expect([error.status, error.message]).toEqual([401, INVALID_SIGNATURE]);
  });

  it('are refused when signed by a key other than the signer', async () => {
    const kp = generateNobleKeyPair();
    const bytes = dagCbor.encode(await signWithSeedClient(generateNobleKeyPair(), listSigners(kp)));
    const error = await refusal(bytes);
    expect([error.status, error.message]).toEqual([401, INVALID_SIGNATURE]);
  });

  it.each([
    ['stale', -SIX_MINUTES, 'behind'],
    ['future', SIX_MINUTES, 'ahead of'],
  ])('are refused with a %s timestamp', async (_name, offset, direction) => {
    const kp = generateNobleKeyPair();
    const bytes = dagCbor.encode(await signWithSeedClient(kp, listSigners(kp, NOW + offset)));
    const error = await refusal(bytes);
    expect(error.status).toBe(401);
    expect(error.message).toBe(
      `Action timestamp is too far from server time: action.ts is ${SIX_MINUTES} ms ${direction} the server clock; ` +
        'the allowed window is ±300000 ms (5 minutes)',
    );
  });

  it('are refused with an all-zero signature', async () => {
    const kp = generateNobleKeyPair();
    const signed = await signWithSeedClient(kp, listSigners(kp));
    const error = await refusal(dagCbor.encode({ ...signed, sig: new Uint8Array(64) }));
    expect([error.status, error.message]).toEqual([401, INVALID_SIGNATURE]);
  });

  it('encode an explicit undefined as CBOR undefined, which is not DAG-CBOR: refused (spec: omit undefined)', async () => {
    const kp = generateNobleKeyPair();
    const signed = await signWithSeedClient(kp, {
      ...listSigners(kp),
      action: { _: 'ListSigners', ts: NOW, afterSeq: undefined },
    });
    // Its `undefined: () => null` type encoder is a no-op in cborg (null means "encode as usual").
    const bytes = encodeBlob(signed as unknown as Blob).data;
    expect(Buffer.from(bytes).includes(Buffer.from([0x68, ...Buffer.from('afterSeq'), 0xf7]))).toBe(true);
    expect(() => dagCbor.encode(signed)).toThrow(/undefined/);

    const error = await refusal(bytes);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid CBOR request: the envelope is not canonical DAG-CBOR .*no undefined/);
  });
});

describe('Capability blobs made by @seed-hypermedia/client', () => {
  it('verify, with the same CID the library computes', async () => {
    const issuer = generateNobleKeyPair();
    const delegate = generateNobleKeyPair();
    const capability = await createCapability(issuer, delegate.principal, 'AGENT', NOW, { label: 'laptop' });

    expect(verifyCapability(capability.data, verifier)).toEqual({
      issuer: seedPrincipalToString(issuer.principal),
      delegate: seedPrincipalToString(delegate.principal),
      role: 'AGENT',
      cid: capability.cid.toString(),
      ts: NOW,
      label: 'laptop',
    });
  });

  it('are refused when tampered with', async () => {
    const issuer = generateNobleKeyPair();
    const delegate = generateNobleKeyPair();
    const capability = await createCapability(issuer, delegate.principal, 'AGENT', NOW);
    const tampered = new Uint8Array(capability.data);
    const at = Buffer.from(tampered).indexOf(Buffer.from(delegate.principal));
    expect(at).toBeGreaterThan(0);
    tampered[at + 33] = (tampered[at + 33] ?? 0) ^ 1;

    let caught: unknown;
    try {
      verifyCapability(tampered, verifier);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toBe(401);
    expect((caught as ApiError).message).toMatch(/^Invalid capability signature:/);
  });
});
