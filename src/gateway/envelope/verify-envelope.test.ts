import { createHash, sign } from 'node:crypto';
import { newKey, type TestKey as Key } from '../../../test/support/ed25519-keys.js';
import { describe, expect, it, vi } from 'vitest';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import { principalToString } from '../../protocol/principal.js';
import { AGENTS_PROTOCOL_VERSION } from '../../protocol/version.js';
import { ApiError } from '../../protocol/api-error.js';
import { Ed25519Verifier } from '../../signing/ed25519-verifier.js';
import { verifyEnvelope, type VerifyEnvelopeDeps } from './verify-envelope.js';


const NOW = 1_750_000_000_000;
const alice = newKey();
const bob = newKey();

type Fields = Record<string, unknown>;

function envelope(overrides: Fields = {}, action: Fields = {}): Fields {
  return {
    type: 'AgentsAction',
    signer: alice.principal,
    sig: new Uint8Array(64),
    account: alice.principal,
    action: { _: 'ListSigners', ts: NOW, ...action },
    ...overrides,
  };
}

/** Signs the way @seed-hypermedia/client's blobs.sign does: over the encoding with a zeroed sig. */
function signed(fields: Fields, key: Key = alice): Fields {
  const unsigned = dagCbor.encode({ ...fields, sig: new Uint8Array(64) });
  return { ...fields, sig: new Uint8Array(sign(null, unsigned, key.privateKey)) };
}

function encodeSigned(fields: Fields, key: Key = alice): Uint8Array {
  return dagCbor.encode(signed(fields, key));
}

function deps(overrides: Partial<VerifyEnvelopeDeps> = {}): VerifyEnvelopeDeps {
  return {
    verifier: new Ed25519Verifier(),
    now: () => NOW,
    isAuthorized: () => Promise.resolve(false),
    ...overrides,
  };
}

async function refusal(bytes: Uint8Array, d: VerifyEnvelopeDeps = deps()): Promise<ApiError> {
  const outcome = await verifyEnvelope(bytes, d).then(
    (verified) => new Error(`expected a refusal, got ${JSON.stringify(verified)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof ApiError)) throw outcome;
  return outcome;
}

const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => Array.from(p)));

describe('verifyEnvelope: acceptance', () => {
  it('accepts an envelope signed by the account, answering at protocol 1 when none is declared', async () => {
    const bytes = encodeSigned(envelope({}, { note: 'hi' }));
    const verified = await verifyEnvelope(bytes, deps());

    expect(verified).toEqual({
      account: principalToString(alice.principal),
      signer: principalToString(alice.principal),
      protocol: 1,
      action: { _: 'ListSigners', ts: NOW, note: 'hi' },
      actionCid: verified.actionCid,
    });
    const cid = CID.parse(verified.actionCid);
    expect(cid.version).toBe(1);
    expect(cid.code).toBe(dagCbor.code);
    expect(cid.multihash.code).toBe(0x12);
    expect(Buffer.from(cid.multihash.digest)).toEqual(createHash('sha256').update(bytes).digest());
  });

  it('does not ask isAuthorized when the signer is the account', async () => {
    const isAuthorized = vi.fn(() => false);
    await verifyEnvelope(encodeSigned(envelope()), deps({ isAuthorized }));
    expect(isAuthorized).not.toHaveBeenCalled();
  });

  it('accepts a delegated signer that isAuthorized allows, passing it the decoded action', async () => {
    const isAuthorized = vi.fn(() => Promise.resolve(true));
    const bytes = encodeSigned(envelope({ signer: bob.principal }, { capability: Uint8Array.of(1, 2) }), bob);
    const verified = await verifyEnvelope(bytes, deps({ isAuthorized }));

    expect(verified.signer).toBe(principalToString(bob.principal));
    expect(verified.account).toBe(principalToString(alice.principal));
    expect(isAuthorized).toHaveBeenCalledWith(
      principalToString(alice.principal),
      principalToString(bob.principal),
      { _: 'ListSigners', ts: NOW, capability: Uint8Array.of(1, 2) },
    );
  });

  it('answers at the client protocol, or at the server protocol when the client is newer', async () => {
    expect((await verifyEnvelope(encodeSigned(envelope({ protocol: 2 })), deps())).protocol).toBe(2);
    const newer = encodeSigned(envelope({ protocol: AGENTS_PROTOCOL_VERSION + 5 }));
    expect((await verifyEnvelope(newer, deps())).protocol).toBe(AGENTS_PROTOCOL_VERSION);
  });

  it('accepts timestamps exactly five minutes either side of the server clock', async () => {
    for (const ts of [NOW - 300_000, NOW + 300_000]) {
      await expect(verifyEnvelope(encodeSigned(envelope({}, { ts })), deps())).resolves.toMatchObject({ protocol: 1 });
    }
  });
});

describe('verifyEnvelope: CBOR', () => {
  it.each([
    ['a lone break byte', Uint8Array.of(0xff)],
    ['a truncated map', dagCbor.encode(envelope()).subarray(0, 20)],
    ['trailing bytes', concat(dagCbor.encode(envelope()), Uint8Array.of(0))],
    ['an empty body', new Uint8Array(0)],
  ])('refuses %s with 400', async (_name, bytes) => {
    const error = await refusal(bytes);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid CBOR request: expected a DAG-CBOR encoded SignedActionEnvelope \(.+\)$/);
  });
});

describe('verifyEnvelope: envelope shape (400)', () => {
  it.each<[string, unknown, string]>([
    ['a list', [1, 2], 'Invalid envelope: expected a map with type, signer, sig, account, protocol, action, got a list'],
    ['a string', 'AgentsAction', 'Invalid envelope: expected a map with type, signer, sig, account, protocol, action, got the string "AgentsAction"'],
    [
      'an unknown field',
      envelope({ extra: 1 }),
      'Invalid envelope: unknown field "extra"; accepted fields are type, signer, sig, account, protocol, action',
    ],
    ['a wrong type', envelope({ type: 'Profile' }), 'Invalid envelope: type must be "AgentsAction", got the string "Profile"'],
    ['a missing type', envelope({ type: undefined }), 'Invalid envelope: type must be "AgentsAction", got nothing'],
    ['a string signer', envelope({ signer: 'z6Mk' }), 'Invalid envelope: signer must be a byte string, got the string "z6Mk"'],
    ['a missing sig', envelope({ sig: undefined }), 'Invalid envelope: sig must be a byte string, got nothing'],
    ['a list account', envelope({ account: [1] }), 'Invalid envelope: account must be a byte string, got a list'],
    [
      'an action that is bytes',
      envelope({ action: new Uint8Array(3) }),
      'Invalid envelope: action must be a map with "_" (the action name) and "ts" (ms since the epoch), got a 3-byte byte string',
    ],
    [
      'an action without a name',
      envelope({}, { _: undefined }),
      'Invalid envelope: action._ must be a string naming the action, got nothing',
    ],
    ['a numeric action name', envelope({}, { _: 7 }), 'Invalid envelope: action._ must be a string naming the action, got the number 7'],
    [
      'a string ts',
      envelope({}, { ts: '2025' }),
      'Invalid envelope: action.ts must be a number (ms since the epoch), got the string "2025"',
    ],
    [
      'a ts beyond the safe integer range',
      envelope({}, { ts: 2n ** 63n }),
      'Invalid envelope: action.ts must be a number (ms since the epoch), got the integer 9223372036854775808 (beyond the safe integer range)',
    ],
    [
      'protocol 0',
      envelope({ protocol: 0 }),
      'Invalid envelope: protocol must be an integer >= 1 when present (absent means 1), got the number 0',
    ],
    ['a fractional protocol', envelope({ protocol: 1.5 }), 'Invalid envelope: protocol must be an integer >= 1 when present (absent means 1), got the number 1.5'],
    ['a string protocol', envelope({ protocol: '2' }), 'Invalid envelope: protocol must be an integer >= 1 when present (absent means 1), got the string "2"'],
    ['a null protocol', envelope({ protocol: null }), 'Invalid envelope: protocol must be an integer >= 1 when present (absent means 1), got null'],
  ])('refuses %s', async (_name, value, message) => {
    const fields = value as Fields;
    // Drop undefined fields: DAG-CBOR cannot encode them, and they stand for a missing field.
    const bytes = dagCbor.encode(
      typeof fields === 'object' && !Array.isArray(fields) ? withoutUndefined(fields) : fields,
    );
    const error = await refusal(bytes);
    expect(error.status).toBe(400);
    expect(error.message).toBe(message);
  });

  it('refuses an unknown field before looking at byte shapes', async () => {
    const error = await refusal(dagCbor.encode(envelope({ extra: true, signer: new Uint8Array(3) })));
    expect(error.status).toBe(400);
    expect(error.message).toContain('unknown field "extra"');
  });
});

function withoutUndefined(fields: Fields): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[key] = value !== null && typeof value === 'object' && value.constructor === Object ? withoutUndefined(value as Fields) : value;
  }
  return out;
}

describe('verifyEnvelope: principal and signature byte shapes (401)', () => {
  const shape = 'an Ed25519 principal: 0xed 0x01 followed by a 32-byte public key (34 bytes)';
  it.each<[string, Fields, string]>([
    ['a short signer', { signer: alice.principal.subarray(0, 33) }, `Invalid signer: expected ${shape}, got 33 bytes starting 0xed01`],
    ['a secp256k1 signer', { signer: Uint8Array.of(0xe7, 0x01, ...alice.principal.subarray(2)) }, `Invalid signer: expected ${shape}, got 34 bytes starting 0xe701`],
    ['an empty account', { account: new Uint8Array(0) }, `Invalid account: expected ${shape}, got 0 bytes`],
    ['a long account', { account: Uint8Array.of(...alice.principal, 0) }, `Invalid account: expected ${shape}, got 35 bytes starting 0xed01`],
    ['a 63-byte sig', { sig: new Uint8Array(63) }, 'Invalid sig: expected a 64-byte Ed25519 signature, got 63 bytes'],
  ])('refuses %s', async (_name, overrides, message) => {
    const error = await refusal(dagCbor.encode(envelope(overrides)));
    expect(error.status).toBe(401);
    expect(error.message).toBe(message);
  });
});

describe('verifyEnvelope: timestamp (401)', () => {
  it('refuses an action signed more than five minutes ago', async () => {
    const error = await refusal(encodeSigned(envelope({}, { ts: NOW - 300_001 })));
    expect(error.status).toBe(401);
    expect(error.message).toBe(
      'Action timestamp is too far from server time: action.ts is 300001 ms behind the server clock; the allowed window is ±300000 ms (5 minutes)',
    );
  });

  it('refuses an action dated more than five minutes ahead', async () => {
    const error = await refusal(encodeSigned(envelope({}, { ts: NOW + 360_000 })));
    expect(error.status).toBe(401);
    expect(error.message).toBe(
      'Action timestamp is too far from server time: action.ts is 360000 ms ahead of the server clock; the allowed window is ±300000 ms (5 minutes)',
    );
  });

  it('refuses a stale action before checking its signature', async () => {
    const bytes = dagCbor.encode(envelope({ sig: new Uint8Array(64).fill(7) }, { ts: NOW - 600_000 }));
    expect((await refusal(bytes)).message).toMatch(/^Action timestamp is too far from server time/);
  });
});

describe('verifyEnvelope: signature', () => {
  const invalid =
    "Invalid signature: sig is not the signer's Ed25519 signature over the DAG-CBOR envelope with sig set to 64 zero bytes";

  it('refuses a flipped signature bit with 401', async () => {
    const fields = signed(envelope());
    const sig = new Uint8Array(fields.sig as Uint8Array);
    sig[10] = (sig[10] ?? 0) ^ 1;
    const error = await refusal(dagCbor.encode({ ...fields, sig }));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses an action changed after signing with 401', async () => {
    const fields = signed(envelope());
    const error = await refusal(dagCbor.encode({ ...fields, action: { _: 'ListSigners', ts: NOW + 1 } }));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses a signature by a key other than the signer with 401', async () => {
    const error = await refusal(encodeSigned(envelope(), bob));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses an all-zero signature with 401', async () => {
    const error = await refusal(dagCbor.encode(envelope()));
    expect([error.status, error.message]).toEqual([401, invalid]);
  });

  it('refuses a validly signed envelope that is not canonically encoded with 400', async () => {
    const fields = signed(envelope());
    // The same map with its keys in insertion order rather than DAG-CBOR's length-first order.
    const keys = ['type', 'signer', 'sig', 'account', 'action'];
    const bytes = concat(
      Uint8Array.of(0xa0 + keys.length),
      ...keys.flatMap((key) => [dagCbor.encode(key), dagCbor.encode(fields[key])]),
    );
    expect(dagCbor.decode(bytes)).toEqual(fields);

    const error = await refusal(bytes);
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'Invalid CBOR request: the envelope is not canonical DAG-CBOR (map keys sorted by length then bytes, shortest integer forms, 64-bit floats, no undefined, as @ipld/dag-cbor encodes it)',
    );
  });
});

describe('verifyEnvelope: signer authorization (401)', () => {
  it('refuses a signer that isAuthorized does not allow, naming both principals', async () => {
    const bytes = encodeSigned(envelope({ signer: bob.principal }), bob);
    const error = await refusal(bytes, deps({ isAuthorized: () => false }));
    expect(error.status).toBe(401);
    expect(error.message).toBe(
      `Signer is not authorized for account: ${principalToString(bob.principal)} may not sign for ` +
        `${principalToString(alice.principal)}; sign with the account key, or have the account authorize this signer (RegisterSigner)`,
    );
  });

  it('lets a failure of isAuthorized through unchanged', async () => {
    const failure = new Error('projection unavailable');
    const bytes = encodeSigned(envelope({ signer: bob.principal }), bob);
    await expect(verifyEnvelope(bytes, deps({ isAuthorized: () => Promise.reject(failure) }))).rejects.toBe(failure);
  });

  it('never asks isAuthorized about an envelope whose signature is invalid', async () => {
    const isAuthorized = vi.fn(() => true);
    await refusal(encodeSigned(envelope({ signer: bob.principal }), alice), deps({ isAuthorized }));
    expect(isAuthorized).not.toHaveBeenCalled();
  });
});

describe('verifyEnvelope: protocol (426)', () => {
  it('refuses a client older than the minimum with protocol_too_old', async () => {
    const error = await refusal(encodeSigned(envelope()), deps({ minClientProtocol: 2 }));
    expect(error.status).toBe(426);
    expect(error.code).toBe('protocol_too_old');
    expect(error.message).toBe(
      `Client protocol 1 is too old: this server requires protocol 2 or newer (it speaks ${AGENTS_PROTOCOL_VERSION}); update the client`,
    );
  });

  it('accepts a client at the minimum', async () => {
    const verified = await verifyEnvelope(encodeSigned(envelope({ protocol: 2 })), deps({ minClientProtocol: 2 }));
    expect(verified.protocol).toBe(2);
  });

  it('checks authorization before the protocol', async () => {
    const bytes = encodeSigned(envelope({ signer: bob.principal }), bob);
    const error = await refusal(bytes, deps({ minClientProtocol: 2 }));
    expect(error.status).toBe(401);
  });
});
