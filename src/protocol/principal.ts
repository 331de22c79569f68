/**
 * Ed25519 principals: `0xed 0x01` (the Ed25519 multicodec varint) followed by the 32-byte public
 * key, written as a base58btc multibase string (`z6Mk…`), exactly as `@seed-hypermedia/client` does.
 * Browser-safe: the client library shares this module with the gateway.
 */
import { base58btc } from 'multiformats/bases/base58';
import { ED25519_PRINCIPAL_PREFIX, ED25519_PUBLIC_KEY_BYTES, type Principal } from './envelope.js';

export const ED25519_PRINCIPAL_BYTES = ED25519_PRINCIPAL_PREFIX.length + ED25519_PUBLIC_KEY_BYTES;

const ACCEPTED_STRING =
  'a base58btc multibase string starting with "z" (z6Mk…) of 0xed 0x01 followed by a 32-byte Ed25519 public key';

export function isEd25519Principal(bytes: Uint8Array): boolean {
  return (
    bytes.length === ED25519_PRINCIPAL_BYTES &&
    bytes[0] === ED25519_PRINCIPAL_PREFIX[0] &&
    bytes[1] === ED25519_PRINCIPAL_PREFIX[1]
  );
}

export function principalFromPublicKey(publicKey: Uint8Array): Principal {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new Error(
      `An Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes, got ${publicKey.length}`,
    );
  }
  const principal = new Uint8Array(ED25519_PRINCIPAL_BYTES);
  principal.set(ED25519_PRINCIPAL_PREFIX);
  principal.set(publicKey, ED25519_PRINCIPAL_PREFIX.length);
  return principal;
}

/** The 32-byte public key, as a view into `principal` (no copy: this is on the verify path). */
export function publicKeyOfPrincipal(principal: Principal): Uint8Array {
  if (!isEd25519Principal(principal)) {
    throw new Error(
      `Not an Ed25519 principal: expected 0xed 0x01 followed by a 32-byte public key (${ED25519_PRINCIPAL_BYTES} bytes), ` +
        `got ${principal.length} bytes`,
    );
  }
  return principal.subarray(ED25519_PRINCIPAL_PREFIX.length);
}

export function principalToString(principal: Principal): string {
  // Validated so that every string produced here is one principalFromString accepts.
  publicKeyOfPrincipal(principal);
  return base58btc.encode(principal);
}

export function principalFromString(text: string): Principal {
  const shown = JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(text);
  } catch (error) {
    throw new Error(`Invalid principal ${shown}: expected ${ACCEPTED_STRING}`, { cause: error });
  }
  if (!isEd25519Principal(bytes)) {
    throw new Error(
      `Invalid principal ${shown}: expected ${ACCEPTED_STRING}, got ${bytes.length} bytes` +
        (bytes.length >= 2 ? ` starting 0x${hex(bytes.subarray(0, 2))}` : ''),
    );
  }
  return bytes;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
