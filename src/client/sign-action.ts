import { encode } from '@ipld/dag-cbor';
import { ED25519_SIGNATURE_BYTES, type Principal, type SignedActionEnvelope } from '../protocol/envelope.js';
import { AGENTS_PROTOCOL_VERSION } from '../protocol/version.js';
import { omitUndefined } from './omit-undefined.js';

/** Signs with the key `principal` names; the Seed apps back this with the daemon or a local key. */
export interface ActionSigner {
  principal: Principal;
  sign(bytes: Uint8Array): Promise<Uint8Array>;
}

/** An action before signing: its name in `_` and its fields; `ts` is added when it is signed. */
export interface UnsignedAction {
  _: string;
}

export interface SignActionInput<A extends UnsignedAction> {
  action: A;
  /** The account the action is for: the signer itself, or an account that authorized the signer. */
  account: Principal;
  signer: ActionSigner;
  /** The protocol version the caller speaks; this build's version unless given. */
  protocol?: number;
}

export interface SignedAction<A extends UnsignedAction> {
  envelope: SignedActionEnvelope<A & { ts: number }>;
  /** The envelope's DAG-CBOR encoding: the request body for POST /api/message. */
  bytes: Uint8Array;
}

/**
 * Signs an action the way `@seed-hypermedia/client`'s `blobs.sign` signs a blob, which is what the
 * server verifies: the envelope is encoded with `sig` set to 64 zero bytes, those bytes are signed,
 * and the signature takes the zeros' place. `ts` is always the signing clock, replacing any given.
 */
export async function signAction<A extends UnsignedAction>({
  action,
  account,
  signer,
  protocol = AGENTS_PROTOCOL_VERSION,
}: SignActionInput<A>): Promise<SignedAction<A>> {
  const unsigned = {
    type: 'AgentsAction' as const,
    signer: signer.principal,
    sig: new Uint8Array(ED25519_SIGNATURE_BYTES),
    account,
    protocol,
    action: omitUndefined({ ...action, ts: Date.now() }),
  };
  const sig = await signer.sign(encode(unsigned));
  const envelope = { ...unsigned, sig };
  return { envelope, bytes: encode(envelope) };
}
