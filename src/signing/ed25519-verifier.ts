import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { ED25519_PUBLIC_KEY_BYTES } from '../protocol/envelope.js';

/**
 * Ed25519 verification through node:crypto. Importing a raw key into a KeyObject costs as much as
 * the verify itself (NOTES.md: ~9,000 verifies/s with cached keys, half that without), and a
 * handful of keys sign almost every request, so KeyObjects live in a bounded LRU.
 */
export class Ed25519Verifier {
  /** Keyed by the base64url public key, which the JWK import needs anyway. Map order is recency. */
  readonly #keys = new Map<string, KeyObject>();

  constructor(readonly maxCachedKeys = 10_000) {
    if (!Number.isSafeInteger(maxCachedKeys) || maxCachedKeys < 1) {
      throw new RangeError(`maxCachedKeys must be a positive integer, got ${maxCachedKeys}`);
    }
  }

  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    return verify(null, message, this.#keyObject(publicKey), signature);
  }

  isCached(publicKey: Uint8Array): boolean {
    return this.#keys.has(base64url(publicKey));
  }

  #keyObject(publicKey: Uint8Array): KeyObject {
    if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
      throw new RangeError(
        `An Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes, got ${publicKey.length}`,
      );
    }
    const x = base64url(publicKey);
    const cached = this.#keys.get(x);
    if (cached !== undefined) {
      this.#keys.delete(x);
      this.#keys.set(x, cached);
      return cached;
    }
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (this.#keys.size >= this.maxCachedKeys) {
      const oldest = this.#keys.keys().next();
      if (!oldest.done) this.#keys.delete(oldest.value);
    }
    this.#keys.set(x, key);
    return key;
  }
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
