import { describe, expect, it } from 'vitest';
import { base58btc } from 'multiformats/bases/base58';
import {
  ED25519_PRINCIPAL_BYTES,
  isEd25519Principal,
  principalFromPublicKey,
  principalFromString,
  principalToString,
  publicKeyOfPrincipal,
} from './principal.js';

const publicKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

describe('Ed25519 principals', () => {
  it('prefixes the public key with the Ed25519 multicodec varint and round-trips through z… strings', () => {
    const principal = principalFromPublicKey(publicKey);
    expect(principal.length).toBe(ED25519_PRINCIPAL_BYTES);
    expect(Array.from(principal.subarray(0, 2))).toEqual([0xed, 0x01]);
    expect(publicKeyOfPrincipal(principal)).toEqual(publicKey);

    const text = principalToString(principal);
    expect(text.startsWith('z6Mk')).toBe(true);
    expect(principalFromString(text)).toEqual(principal);
  });

  it('recognises only 0xed 0x01 + 32 bytes', () => {
    const principal = principalFromPublicKey(publicKey);
    expect(isEd25519Principal(principal)).toBe(true);
    expect(isEd25519Principal(principal.subarray(0, 33))).toBe(false);
    expect(isEd25519Principal(Uint8Array.of(...principal, 0))).toBe(false);
    expect(isEd25519Principal(Uint8Array.of(0xe7, 0x01, ...publicKey))).toBe(false);
    expect(isEd25519Principal(new Uint8Array(0))).toBe(false);
  });

  it('refuses a public key that is not 32 bytes', () => {
    expect(() => principalFromPublicKey(new Uint8Array(31))).toThrow(
      'An Ed25519 public key is 32 bytes, got 31',
    );
  });

  it('refuses to take the key out of, or print, something that is not an Ed25519 principal', () => {
    const secp = Uint8Array.of(0xe7, 0x01, ...publicKey, 0);
    expect(() => publicKeyOfPrincipal(secp)).toThrow(
      'Not an Ed25519 principal: expected 0xed 0x01 followed by a 32-byte public key (34 bytes), got 35 bytes',
    );
    expect(() => principalToString(publicKey)).toThrow('Not an Ed25519 principal');
  });

  it('says what it accepts when a string is not a principal', () => {
    const accepted =
      'expected a base58btc multibase string starting with "z" (z6Mk…) of 0xed 0x01 followed by a 32-byte Ed25519 public key';
    expect(() => principalFromString('6MkNotMultibase')).toThrow(`Invalid principal "6MkNotMultibase": ${accepted}`);
    expect(() => principalFromString('z0OIl')).toThrow(`Invalid principal "z0OIl": ${accepted}`);
    expect(() => principalFromString(base58btc.encode(publicKey))).toThrow(
      `${accepted}, got 32 bytes starting 0x0102`,
    );
    expect(() => principalFromString(base58btc.encode(Uint8Array.of(0xe7, 0x01, ...publicKey)))).toThrow(
      `${accepted}, got 34 bytes starting 0xe701`,
    );
  });

  it('keeps the cause of a decoding failure and does not echo a long input back', () => {
    const long = `x${'1'.repeat(200)}`;
    let caught: unknown;
    try {
      principalFromString(long);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).cause).toBeInstanceOf(Error);
    expect((caught as Error).message).toContain(`"${long.slice(0, 64)}…"`);
    expect((caught as Error).message).not.toContain(long);
  });
});
