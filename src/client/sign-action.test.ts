import { decode } from '@ipld/dag-cbor';
import * as blobs from '@seed-hypermedia/client/blobs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENTS_PROTOCOL_VERSION } from '../protocol/version.js';
import { ed25519Signer } from './ed25519-signer.js';
import { signAction } from './sign-action.js';

const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const NOW = 1_760_000_000_000;

describe('signAction', () => {
  afterEach(() => vi.restoreAllMocks());

  it('produces the bytes @seed-hypermedia/client blobs.sign produces for the same key and action', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const ours = await ed25519Signer(seed);
    const theirs = blobs.nobleKeyPairFromSeed(seed);
    const account = blobs.generateNobleKeyPair().principal;
    const action = { _: 'RegisterSigner', capability: Uint8Array.of(9, 8, 7), label: 'laptop', nested: { n: [1, 2] } };

    const { envelope, bytes } = await signAction({ action, account, signer: ours });

    const unsigned = {
      type: 'AgentsAction',
      signer: theirs.principal,
      sig: new Uint8Array(64),
      account,
      protocol: AGENTS_PROTOCOL_VERSION,
      action: { ...action, ts: NOW },
    };
    // blobs.sign is typed for blobs with a top-level ts; the agents envelope carries ts inside the action.
    const signed = await blobs.sign(theirs, unsigned as unknown as blobs.Blob);
    expect(bytes).toStrictEqual(blobs.encode(signed).data);
    expect(envelope.sig).toStrictEqual(signed.sig);
    expect(envelope.action.ts).toBe(NOW);
    expect(blobs.verify(decode(bytes) as blobs.Blob)).toBe(true);
  });

  it('signs what the server decodes: undefined fields are omitted, not encoded as null', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const signer = await ed25519Signer(seed);
    const plain = await signAction({ action: { _: 'Subscribe', session: 's' }, account: signer.principal, signer });
    const withUndefined = await signAction({
      action: { _: 'Subscribe', session: 's', afterSeq: undefined },
      account: signer.principal,
      signer,
    });
    expect(withUndefined.bytes).toStrictEqual(plain.bytes);
    expect(decode(withUndefined.bytes)).toMatchObject({ action: { _: 'Subscribe', session: 's', ts: NOW } });
  });

  it('uses the signing clock for ts and the given protocol version', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const signer = await ed25519Signer(seed);
    const { envelope, bytes } = await signAction({
      action: { _: 'ListSigners', ts: 1 },
      account: signer.principal,
      signer,
      protocol: 1,
    });
    expect(envelope).toMatchObject({ type: 'AgentsAction', protocol: 1, action: { _: 'ListSigners', ts: NOW } });
    expect(blobs.verify(decode(bytes) as blobs.Blob)).toBe(true);
  });
});
