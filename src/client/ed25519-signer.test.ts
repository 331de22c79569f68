import * as blobs from '@seed-hypermedia/client/blobs';
import { describe, expect, it } from 'vitest';
import { ed25519Signer, generateSigner } from './ed25519-signer.js';

describe('ed25519Signer', () => {
  it('derives the principal and signatures @seed-hypermedia/client derives from the same seed', async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const ours = await ed25519Signer(seed);
    const theirs = blobs.nobleKeyPairFromSeed(seed);
    expect(ours.principal).toStrictEqual(theirs.principal);
    expect(ours.principal.subarray(0, 2)).toStrictEqual(Uint8Array.of(0xed, 0x01));
    expect(ours.publicKey).toStrictEqual(theirs.publicKey);
    expect(ours.seed).toStrictEqual(seed);
    const message = new TextEncoder().encode('hello');
    expect(await ours.sign(message)).toStrictEqual(await theirs.sign(message));
  });

  it('keeps its own copy of the seed', async () => {
    const seed = new Uint8Array(32).fill(7);
    const signer = await ed25519Signer(seed);
    seed.fill(0);
    expect(signer.seed).toStrictEqual(new Uint8Array(32).fill(7));
  });

  it('refuses a seed that is not 32 bytes', async () => {
    await expect(ed25519Signer(new Uint8Array(31))).rejects.toThrow('an Ed25519 seed is 32 bytes, got 31');
  });

  it('generates distinct keys that round-trip through their seed', async () => {
    const a = await generateSigner();
    const b = await generateSigner();
    expect(a.principal).not.toStrictEqual(b.principal);
    expect((await ed25519Signer(a.seed)).principal).toStrictEqual(a.principal);
  });
});
