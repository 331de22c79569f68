import { createHash, sign } from 'node:crypto';
import { newKey, type TestKey as Key } from '../../test/support/ed25519-keys.js';
import { describe, expect, it } from 'vitest';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { principalToString } from '../protocol/principal.js';
import { ApiError } from '../protocol/api-error.js';
import { verifyCapability } from './capability.js';
import { Ed25519Verifier } from './ed25519-verifier.js';


const issuer = newKey();
const delegate = newKey();
const other = newKey();
const TS = 1_750_000_000_000;
const verifier = new Ed25519Verifier();

type Fields = Record<string, unknown>;

function capability(overrides: Fields = {}): Fields {
  const fields: Fields = {
    type: 'Capability',
    signer: issuer.principal,
    sig: new Uint8Array(64),
    ts: TS,
    delegate: delegate.principal,
    role: 'AGENT',
    ...overrides,
  };
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields;
}

function encodeSigned(fields: Fields, key: Key = issuer): Uint8Array {
  const unsigned = dagCbor.encode({ ...fields, sig: new Uint8Array(64) });
  return dagCbor.encode({ ...fields, sig: new Uint8Array(sign(null, unsigned, key.privateKey)) });
}

function refusal(bytes: Uint8Array): ApiError {
  try {
    verifyCapability(bytes, verifier);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('verifyCapability: acceptance', () => {
  it('returns the issuer, delegate, role, ts and the CID of the blob', () => {
    const bytes = encodeSigned(capability());
    const verified = verifyCapability(bytes, verifier);

    expect(verified).toEqual({
      issuer: principalToString(issuer.principal),
      delegate: principalToString(delegate.principal),
      role: 'AGENT',
      cid: verified.cid,
      ts: TS,
    });
    const cid = CID.parse(verified.cid);
    expect([cid.version, cid.code, cid.multihash.code]).toEqual([1, dagCbor.code, 0x12]);
    expect(Buffer.from(cid.multihash.digest)).toEqual(createHash('sha256').update(bytes).digest());
  });

  it('returns label, path and audience when present', () => {
    const bytes = encodeSigned(capability({ role: 'WRITER', label: 'laptop', path: '/notes', audience: other.principal }));
    expect(verifyCapability(bytes, verifier)).toMatchObject({
      role: 'WRITER',
      label: 'laptop',
      path: '/notes',
      audience: principalToString(other.principal),
    });
  });
});

describe('verifyCapability: malformed (400)', () => {
  const shape = 'an Ed25519 principal: 0xed 0x01 followed by a 32-byte public key (34 bytes)';
  it.each<[string, unknown, string]>([
    ['a list', [1], 'Invalid capability: expected a map, got a list'],
    [
      'an unknown field',
      capability({ noRecursive: true }),
      'Invalid capability: unknown field "noRecursive"; accepted fields are type, signer, sig, ts, delegate, role, path, label, audience',
    ],
    ['another blob type', capability({ type: 'Profile' }), 'Invalid capability: type must be "Capability", got the string "Profile"'],
    ['a missing signer', capability({ signer: undefined }), `Invalid capability: signer must be ${shape}, got nothing`],
    ['a short delegate', capability({ delegate: delegate.principal.subarray(0, 20) }), `Invalid capability: delegate must be ${shape}, got 20 bytes starting 0xed01`],
    ['a string audience', capability({ audience: 'z6Mk' }), `Invalid capability: audience must be ${shape}, got the string "z6Mk"`],
    ['a 32-byte sig', capability({ sig: new Uint8Array(32) }), 'Invalid capability: sig must be a 64-byte Ed25519 signature, got a 32-byte byte string'],
    ['a string ts', capability({ ts: 'now' }), 'Invalid capability: ts must be a non-negative integer (ms since the epoch), got the string "now"'],
    ['a fractional ts', capability({ ts: 1700000000000.5 }), 'Invalid capability: ts must be a non-negative integer (ms since the epoch), got the number 1700000000000.5'],
    ['an unknown role', capability({ role: 'ADMIN' }), 'Invalid capability: role must be "WRITER" or "AGENT", got the string "ADMIN"'],
    ['a numeric path', capability({ path: 1 }), 'Invalid capability: path must be a string when present, got the number 1'],
    ['a bytes label', capability({ label: new Uint8Array(1) }), 'Invalid capability: label must be a string when present, got a 1-byte byte string'],
  ])('refuses %s', (_name, value, message) => {
    const error = refusal(dagCbor.encode(value));
    expect([error.status, error.message]).toEqual([400, message]);
  });

  it('refuses bytes that are not DAG-CBOR', () => {
    const error = refusal(Uint8Array.of(0xa1, 0x61));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid capability: expected a DAG-CBOR encoded Capability blob \(.+\)$/);
  });

  it('refuses a validly signed capability that is not canonically encoded', () => {
    const bytes = encodeSigned(capability());
    const fields = dagCbor.decode(bytes) as Fields;
    const keys = ['type', 'signer', 'sig', 'ts', 'delegate', 'role'];
    const parts = [Uint8Array.of(0xa0 + keys.length), ...keys.flatMap((k) => [dagCbor.encode(k), dagCbor.encode(fields[k])])];
    const reordered = Uint8Array.from(parts.flatMap((p) => Array.from(p)));

    const error = refusal(reordered);
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'Invalid capability: not canonical DAG-CBOR (map keys sorted by length then bytes, shortest integer forms, 64-bit floats, no undefined, as @ipld/dag-cbor encodes it)',
    );
  });
});

describe('verifyCapability: signature (401)', () => {
  const invalid =
    "Invalid capability signature: sig is not the issuer's (signer's) Ed25519 signature over the DAG-CBOR blob with sig set to 64 zero bytes";

  it('refuses a capability signed by a key other than its signer', () => {
    const error = refusal(encodeSigned(capability(), other));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses a capability whose delegate was changed after signing', () => {
    const bytes = encodeSigned(capability());
    const fields = dagCbor.decode(bytes) as Fields;
    const error = refusal(dagCbor.encode({ ...fields, delegate: other.principal }));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses an all-zero signature', () => {
    const error = refusal(dagCbor.encode(capability()));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });
});
