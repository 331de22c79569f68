import * as ed from '@noble/ed25519';
import { principalFromPublicKey } from '../protocol/principal.js';
import type { ActionSigner } from './sign-action.js';

export interface Ed25519Signer extends ActionSigner {
  publicKey: Uint8Array;
  /** The 32-byte private seed: what a key file stores. */
  seed: Uint8Array;
}

const SEED_BYTES = 32;

/**
 * A signer over a raw Ed25519 seed. The async noble calls hash with WebCrypto's SHA-512, so this
 * needs no hash library and runs unchanged in browsers and Node.
 */
export async function ed25519Signer(seed: Uint8Array): Promise<Ed25519Signer> {
  if (seed.length !== SEED_BYTES) {
    throw new TypeError(`an Ed25519 seed is ${SEED_BYTES} bytes, got ${seed.length}`);
  }
  const key = Uint8Array.from(seed);
  const publicKey = await ed.getPublicKeyAsync(key);
  const signer = { principal: principalFromPublicKey(publicKey), publicKey, sign: (bytes: Uint8Array) => ed.signAsync(bytes, key) };
  // Not enumerable: logging or serializing a signer must not print its private seed.
  return Object.defineProperty(signer, 'seed', { value: key, enumerable: false }) as Ed25519Signer;
}

export function generateSigner(): Promise<Ed25519Signer> {
  return ed25519Signer(ed.utils.randomSecretKey());
}
