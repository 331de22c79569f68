import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ed25519Verifier } from './ed25519-verifier.js';

function keyPair(): { publicKey: Uint8Array; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x;
  if (x === undefined) throw new Error('Ed25519 JWK without x');
  return { publicKey: new Uint8Array(Buffer.from(x, 'base64url')), privateKey };
}

const message = new TextEncoder().encode('signed bytes');

describe('Ed25519Verifier', () => {
  it('accepts a valid signature and refuses a wrong message, key or signature', () => {
    const verifier = new Ed25519Verifier();
    const a = keyPair();
    const b = keyPair();
    const sig = new Uint8Array(sign(null, message, a.privateKey));

    expect(verifier.verify(a.publicKey, message, sig)).toBe(true);
    expect(verifier.verify(a.publicKey, new TextEncoder().encode('other bytes'), sig)).toBe(false);
    expect(verifier.verify(b.publicKey, message, sig)).toBe(false);
    expect(verifier.verify(a.publicKey, message, new Uint8Array(64))).toBe(false);
  });

  it('reads a key that is a view into a larger buffer (a principal without its prefix)', () => {
    const verifier = new Ed25519Verifier();
    const a = keyPair();
    const principal = Uint8Array.of(0xed, 0x01, ...a.publicKey);
    const sig = new Uint8Array(sign(null, message, a.privateKey));
    expect(verifier.verify(principal.subarray(2), message, sig)).toBe(true);
  });

  it('keeps the most recently used keys, up to its bound', () => {
    const verifier = new Ed25519Verifier(2);
    const [a, b, c] = [keyPair(), keyPair(), keyPair()];
    const sigOf = (k: { privateKey: KeyObject }) => new Uint8Array(sign(null, message, k.privateKey));

    verifier.verify(a.publicKey, message, sigOf(a));
    verifier.verify(b.publicKey, message, sigOf(b));
    verifier.verify(a.publicKey, message, sigOf(a));
    verifier.verify(c.publicKey, message, sigOf(c));

    expect(verifier.isCached(a.publicKey)).toBe(true);
    expect(verifier.isCached(b.publicKey)).toBe(false);
    expect(verifier.isCached(c.publicKey)).toBe(true);
    expect(verifier.verify(b.publicKey, message, sigOf(b))).toBe(true);
  });

  it('refuses a key that is not 32 bytes, and a cache bound that is not a positive integer', () => {
    const verifier = new Ed25519Verifier();
    expect(() => verifier.verify(new Uint8Array(33), message, new Uint8Array(64))).toThrow(
      'An Ed25519 public key is 32 bytes, got 33',
    );
    expect(() => new Ed25519Verifier(0)).toThrow('maxCachedKeys must be a positive integer, got 0');
  });
});
