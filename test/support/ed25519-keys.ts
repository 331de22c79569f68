import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { principalFromPublicKey } from '../../src/protocol/principal.js';

export interface TestKey {
  principal: Uint8Array;
  privateKey: KeyObject;
}

/** A fresh Ed25519 key, signing with node:crypto, and its Seed principal. */
export function newKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x;
  if (x === undefined) throw new Error('Ed25519 JWK without x');
  return { principal: principalFromPublicKey(Buffer.from(x, 'base64url')), privateKey };
}
