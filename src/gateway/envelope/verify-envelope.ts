import * as dagCbor from '@ipld/dag-cbor';
import {
  ED25519_SIGNATURE_BYTES,
  MAX_CLOCK_SKEW_MS,
  type ActionBase,
} from '../../protocol/envelope.js';
import { AGENTS_PROTOCOL_VERSION, MIN_CLIENT_PROTOCOL } from '../../protocol/version.js';
import {
  ED25519_PRINCIPAL_BYTES,
  isEd25519Principal,
  principalToString,
  publicKeyOfPrincipal,
} from '../../protocol/principal.js';
import { ApiError } from '../../protocol/api-error.js';
import { dagCborCid, describeBytes, describeValue, errorMessage, isPlainMap, quote } from '../../signing/cbor-values.js';

export type DecodedAction = ActionBase & Record<string, unknown>;

export interface VerifiedAction {
  account: string;
  signer: string;
  /** min(client's declared protocol, AGENTS_PROTOCOL_VERSION): the version to answer in. */
  protocol: number;
  action: DecodedAction;
  /** CIDv1 (dag-cbor, sha2-256) of the envelope bytes: the causation id of what the action causes. */
  actionCid: string;
}

export interface VerifyEnvelopeDeps {
  /** Sync (in-thread) or async (a worker pool): the result is awaited either way. */
  verifier: { verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean | Promise<boolean> };
  /** The server clock, ms since the epoch. */
  now: () => number;
  /**
   * Whether `signer` may sign for `account` (both base58btc). Only asked when they differ. Gets the
   * action so that a RegisterSigner can be accepted on the strength of the capability it carries.
   */
  isAuthorized: (account: string, signer: string, action: DecodedAction) => boolean | Promise<boolean>;
  /** Defaults to MIN_CLIENT_PROTOCOL. */
  minClientProtocol?: number;
}

const ENVELOPE_FIELDS = ['type', 'signer', 'sig', 'account', 'protocol', 'action'] as const;
const ENVELOPE_FIELD_SET: ReadonlySet<string> = new Set(ENVELOPE_FIELDS);
const PRINCIPAL_SHAPE = `an Ed25519 principal: 0xed 0x01 followed by a 32-byte public key (${ED25519_PRINCIPAL_BYTES} bytes)`;
const ZERO_SIGNATURE = new Uint8Array(ED25519_SIGNATURE_BYTES);

/**
 * DAG-CBOR sorts map keys by length first, and with unknown fields refused `sig` is the shortest
 * top-level key: a canonical envelope is a map header (1 byte, at most 6 entries), the text "sig"
 * (4 bytes), a 64-byte byte string header (2 bytes), then the signature. So the canonical encoding
 * of the envelope as received equals its zero-sig encoding everywhere outside these bytes.
 */
const SIG_START = 1 + 4 + 2;
const SIG_END = SIG_START + ED25519_SIGNATURE_BYTES;

/**
 * Verifies a signed action envelope (spec/http-api.md, "Signed envelope"). The checks run in the
 * spec's order, cheapest refusals first, so that a forged or stale request costs no signature check.
 */
export async function verifyEnvelope(bytes: Uint8Array, deps: VerifyEnvelopeDeps): Promise<VerifiedAction> {
  let decoded: unknown;
  try {
    decoded = dagCbor.decode(bytes);
  } catch (error) {
    throw new ApiError(
      400,
      `Invalid CBOR request: expected a DAG-CBOR encoded SignedActionEnvelope (${errorMessage(error)})`,
    );
  }

  const envelope = checkEnvelopeShape(decoded);
  const { signer, sig, account, action } = envelope;

  if (!isEd25519Principal(signer)) {
    throw new ApiError(401, `Invalid signer: expected ${PRINCIPAL_SHAPE}, got ${describeBytes(signer)}`);
  }
  if (!isEd25519Principal(account)) {
    throw new ApiError(401, `Invalid account: expected ${PRINCIPAL_SHAPE}, got ${describeBytes(account)}`);
  }
  if (sig.length !== ED25519_SIGNATURE_BYTES) {
    throw new ApiError(
      401,
      `Invalid sig: expected a ${ED25519_SIGNATURE_BYTES}-byte Ed25519 signature, got ${sig.length} bytes`,
    );
  }

  const skew = action.ts - deps.now();
  if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
    throw new ApiError(
      401,
      `Action timestamp is too far from server time: action.ts is ${Math.abs(skew)} ms ` +
        `${skew > 0 ? 'ahead of' : 'behind'} the server clock; the allowed window is ` +
        `±${MAX_CLOCK_SKEW_MS} ms (${MAX_CLOCK_SKEW_MS / 60_000} minutes)`,
    );
  }

  const unsigned = dagCbor.encode({ ...envelope, sig: ZERO_SIGNATURE });
  // One signed action must have one encoding, hence one actionCid: a re-encoded copy of a seen
  // action would otherwise pass as a new one, and the causation id could not deduplicate it.
  if (!equalOutside(bytes, unsigned, SIG_START, SIG_END)) {
    throw new ApiError(
      400,
      'Invalid CBOR request: the envelope is not canonical DAG-CBOR (map keys sorted by length then ' +
        'bytes, shortest integer forms, 64-bit floats, no undefined, as @ipld/dag-cbor encodes it)',
    );
  }
  if (!(await deps.verifier.verify(publicKeyOfPrincipal(signer), unsigned, sig))) {
    throw new ApiError(
      401,
      "Invalid signature: sig is not the signer's Ed25519 signature over the DAG-CBOR envelope " +
        `with sig set to ${ED25519_SIGNATURE_BYTES} zero bytes`,
    );
  }

  const signerString = principalToString(signer);
  const selfSigned = Buffer.compare(signer, account) === 0;
  const accountString = selfSigned ? signerString : principalToString(account);
  if (!selfSigned && !(await deps.isAuthorized(accountString, signerString, action))) {
    throw new ApiError(
      401,
      `Signer is not authorized for account: ${signerString} may not sign for ${accountString}; ` +
        'sign with the account key, or have the account authorize this signer (RegisterSigner)',
    );
  }

  const clientProtocol = envelope.protocol ?? 1;
  const minClientProtocol = deps.minClientProtocol ?? MIN_CLIENT_PROTOCOL;
  if (clientProtocol < minClientProtocol) {
    throw new ApiError(
      426,
      `Client protocol ${clientProtocol} is too old: this server requires protocol ` +
        `${minClientProtocol} or newer (it speaks ${AGENTS_PROTOCOL_VERSION}); update the client`,
      'protocol_too_old',
    );
  }

  return {
    account: accountString,
    signer: signerString,
    protocol: Math.min(clientProtocol, AGENTS_PROTOCOL_VERSION),
    action,
    actionCid: dagCborCid(bytes),
  };
}

interface DecodedEnvelope {
  type: 'AgentsAction';
  signer: Uint8Array;
  sig: Uint8Array;
  account: Uint8Array;
  protocol?: number;
  action: DecodedAction;
}

function checkEnvelopeShape(value: unknown): DecodedEnvelope {
  const accepted = `accepted fields are ${ENVELOPE_FIELDS.join(', ')}`;
  if (!isPlainMap(value)) {
    throw new ApiError(400, `Invalid envelope: expected a map with ${ENVELOPE_FIELDS.join(', ')}, got ${describeValue(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!ENVELOPE_FIELD_SET.has(key)) {
      throw new ApiError(400, `Invalid envelope: unknown field ${quote(key)}; ${accepted}`);
    }
  }
  const { type, signer, sig, account, protocol, action } = value;
  if (type !== 'AgentsAction') {
    throw new ApiError(400, `Invalid envelope: type must be "AgentsAction", got ${describeValue(type)}`);
  }
  for (const [field, bytes] of [['signer', signer], ['sig', sig], ['account', account]] as const) {
    if (!(bytes instanceof Uint8Array)) {
      throw new ApiError(400, `Invalid envelope: ${field} must be a byte string, got ${describeValue(bytes)}`);
    }
  }
  if (!isPlainMap(action)) {
    throw new ApiError(
      400,
      `Invalid envelope: action must be a map with "_" (the action name) and "ts" (ms since the epoch), got ${describeValue(action)}`,
    );
  }
  if (typeof action._ !== 'string') {
    throw new ApiError(400, `Invalid envelope: action._ must be a string naming the action, got ${describeValue(action._)}`);
  }
  if (typeof action.ts !== 'number') {
    throw new ApiError(400, `Invalid envelope: action.ts must be a number (ms since the epoch), got ${describeValue(action.ts)}`);
  }
  if (protocol !== undefined && !(Number.isSafeInteger(protocol) && (protocol as number) >= 1)) {
    throw new ApiError(
      400,
      `Invalid envelope: protocol must be an integer >= 1 when present (absent means 1), got ${describeValue(protocol)}`,
    );
  }
  return value as unknown as DecodedEnvelope;
}

function equalOutside(a: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  return (
    a.length === b.length &&
    a.length >= end &&
    Buffer.compare(a.subarray(0, start), b.subarray(0, start)) === 0 &&
    Buffer.compare(a.subarray(end), b.subarray(end)) === 0
  );
}
