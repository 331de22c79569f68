/** Decoded DAG-CBOR values: recognising maps, describing values for error messages, addressing blobs. */
import { createHash } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { sha256 } from 'multiformats/hashes/sha2';

/** A DAG-CBOR map as @ipld/dag-cbor decodes it: a plain object (not bytes, a list or a CID). */
export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A decoded value, described for an error message without echoing much of it back. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return `a ${value.length}-byte byte string`;
  if (Array.isArray(value)) return 'a list';
  if (CID.asCID(value) !== null) return 'a CID link';
  switch (typeof value) {
    case 'string':
      return `the string ${quote(value)}`;
    case 'number':
      return `the number ${value}`;
    case 'bigint':
      return `the integer ${value} (beyond the safe integer range)`;
    case 'boolean':
      return String(value);
    default:
      return 'a map';
  }
}

export function describeBytes(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 2)).toString('hex');
  return bytes.length === 0 ? '0 bytes' : `${bytes.length} bytes starting 0x${head}`;
}

export function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** CIDv1, dag-cbor codec, sha2-256: how Seed addresses blobs. */
export function dagCborCid(bytes: Uint8Array): string {
  const hash = createHash('sha256').update(bytes).digest();
  return CID.createV1(dagCbor.code, Digest.create(sha256.code, hash)).toString();
}
