/**
 * The secret store's cryptography, all node:crypto: AES-256-GCM sealing (a fresh 12-byte nonce per
 * seal; `nonce ‖ ciphertext ‖ tag`), and HMAC-SHA256 for key ids and fingerprints.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** A seal that does not open: the wrong key, or bytes changed or moved to another row. */
export class UnsealError extends Error {
  override name = 'UnsealError';
}

export function newKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** `aad` binds the sealed bytes to where they are stored, so a row's bytes cannot be swapped into another. */
export function seal(key: Uint8Array, plaintext: Uint8Array, aad: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(CIPHER, key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

export function unseal(key: Uint8Array, sealed: Uint8Array, aad: string, what: string): Buffer {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new UnsealError(`${what} is ${sealed.length} bytes, too short to be sealed`);
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv(CIPHER, key, bytes.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new UnsealError(`${what} does not open under this key (${(error as Error).message})`);
  }
}

/** Names a master key without revealing it, so a store can tell which key sealed it. */
export function keyId(masterKey: Uint8Array): string {
  return createHmac('sha256', masterKey).update('seed-agents master key id v1').digest('base64url').slice(0, 16);
}

export function hmac(key: Uint8Array, ...parts: (string | Uint8Array)[]): string {
  const mac = createHmac('sha256', key);
  // Length-prefixed, so no two different part lists feed the same bytes.
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    mac.update(length).update(bytes);
  }
  return mac.digest('base64url');
}
