import * as dagCbor from '@ipld/dag-cbor';
import { ED25519_SIGNATURE_BYTES } from '../protocol/envelope.js';
import {
  ED25519_PRINCIPAL_BYTES,
  isEd25519Principal,
  principalToString,
  publicKeyOfPrincipal,
} from '../protocol/principal.js';
import { ApiError } from '../protocol/api-error.js';
import type { Ed25519Verifier } from './ed25519-verifier.js';
import { dagCborCid, describeBytes, describeValue, errorMessage, isPlainMap, quote } from './cbor-values.js';

export type CapabilityRole = 'WRITER' | 'AGENT';

export interface VerifiedCapability {
  /** base58btc principal that signed the capability. */
  issuer: string;
  /** base58btc principal receiving the rights. */
  delegate: string;
  role: CapabilityRole;
  /** CIDv1 (dag-cbor, sha2-256) of the blob. */
  cid: string;
  ts: number;
  label?: string;
  path?: string;
  /** base58btc principal the capability is scoped to, when it is. */
  audience?: string;
}

const CAPABILITY_FIELDS = ['type', 'signer', 'sig', 'ts', 'delegate', 'role', 'path', 'label', 'audience'] as const;
const CAPABILITY_FIELD_SET: ReadonlySet<string> = new Set(CAPABILITY_FIELDS);
const ROLES: ReadonlySet<unknown> = new Set<CapabilityRole>(['WRITER', 'AGENT']);
const PRINCIPAL_SHAPE = `an Ed25519 principal: 0xed 0x01 followed by a 32-byte public key (${ED25519_PRINCIPAL_BYTES} bytes)`;

/**
 * Verifies a Capability blob as `@seed-hypermedia/client`'s `createCapability` encodes it: signed
 * by `signer` (the issuer) over its DAG-CBOR encoding with `sig` set to 64 zero bytes. Unknown
 * fields are refused rather than ignored: one could narrow the grant in a way we would not honour.
 */
export function verifyCapability(bytes: Uint8Array, verifier: Pick<Ed25519Verifier, 'verify'>): VerifiedCapability {
  let decoded: unknown;
  try {
    decoded = dagCbor.decode(bytes);
  } catch (error) {
    throw new ApiError(400, `Invalid capability: expected a DAG-CBOR encoded Capability blob (${errorMessage(error)})`);
  }
  if (!isPlainMap(decoded)) {
    throw new ApiError(400, `Invalid capability: expected a map, got ${describeValue(decoded)}`);
  }
  for (const key of Object.keys(decoded)) {
    if (!CAPABILITY_FIELD_SET.has(key)) {
      throw new ApiError(
        400,
        `Invalid capability: unknown field ${quote(key)}; accepted fields are ${CAPABILITY_FIELDS.join(', ')}`,
      );
    }
  }
  const { type, signer, sig, ts, delegate, role, path, label, audience } = decoded;
  if (type !== 'Capability') {
    throw new ApiError(400, `Invalid capability: type must be "Capability", got ${describeValue(type)}`);
  }
  const issuer = principalField('signer', signer);
  const delegatePrincipal = principalField('delegate', delegate);
  const audiencePrincipal = audience === undefined ? undefined : principalField('audience', audience);
  if (!(sig instanceof Uint8Array) || sig.length !== ED25519_SIGNATURE_BYTES) {
    throw new ApiError(
      400,
      `Invalid capability: sig must be a ${ED25519_SIGNATURE_BYTES}-byte Ed25519 signature, got ${describeValue(sig)}`,
    );
  }
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) {
    throw new ApiError(
      400,
      `Invalid capability: ts must be a non-negative integer (ms since the epoch), got ${describeValue(ts)}`,
    );
  }
  if (!ROLES.has(role)) {
    throw new ApiError(400, `Invalid capability: role must be "WRITER" or "AGENT", got ${describeValue(role)}`);
  }
  for (const [field, text] of [['path', path], ['label', label]] as const) {
    if (text !== undefined && typeof text !== 'string') {
      throw new ApiError(400, `Invalid capability: ${field} must be a string when present, got ${describeValue(text)}`);
    }
  }

  // A non-canonical encoding would give the same grant a second CID.
  if (Buffer.compare(dagCbor.encode(decoded), bytes) !== 0) {
    throw new ApiError(
      400,
      'Invalid capability: not canonical DAG-CBOR (map keys sorted by length then bytes, shortest ' +
        'integer forms, 64-bit floats, no undefined, as @ipld/dag-cbor encodes it)',
    );
  }
  const unsigned = dagCbor.encode({ ...decoded, sig: new Uint8Array(ED25519_SIGNATURE_BYTES) });
  if (!verifier.verify(publicKeyOfPrincipal(issuer), unsigned, sig)) {
    throw new ApiError(
      401,
      "Invalid capability signature: sig is not the issuer's (signer's) Ed25519 signature over the " +
        `DAG-CBOR blob with sig set to ${ED25519_SIGNATURE_BYTES} zero bytes`,
    );
  }

  const verified: VerifiedCapability = {
    issuer: principalToString(issuer),
    delegate: principalToString(delegatePrincipal),
    role: role as CapabilityRole,
    cid: dagCborCid(bytes),
    ts,
  };
  if (label !== undefined) verified.label = label as string;
  if (path !== undefined) verified.path = path as string;
  if (audiencePrincipal !== undefined) verified.audience = principalToString(audiencePrincipal);
  return verified;
}

function principalField(field: 'signer' | 'delegate' | 'audience', value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new ApiError(400, `Invalid capability: ${field} must be ${PRINCIPAL_SHAPE}, got ${describeValue(value)}`);
  }
  if (!isEd25519Principal(value)) {
    throw new ApiError(400, `Invalid capability: ${field} must be ${PRINCIPAL_SHAPE}, got ${describeBytes(value)}`);
  }
  return value;
}
