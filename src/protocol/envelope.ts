/** The signed action envelope, as the Seed apps' client builds it (spec/http-api.md, "Signed envelope"). */

/** `0xed 0x01` (the Ed25519 multicodec varint) followed by the 32-byte public key. */
export type Principal = Uint8Array;
export type Signature = Uint8Array;

/** Every action carries its name in `_` and, once signed, the client's clock in `ts` (ms). */
export interface ActionBase {
  _: string;
  ts: number;
}

export interface SignedActionEnvelope<A extends ActionBase = ActionBase> {
  type: 'AgentsAction';
  signer: Principal;
  sig: Signature;
  account: Principal;
  /** The client's protocol version; absent means 1. */
  protocol?: number;
  action: A;
}

export interface ErrorResponse {
  _: 'Error';
  message: string;
  code?: string;
}

export const ED25519_PRINCIPAL_PREFIX = Uint8Array.of(0xed, 0x01);
export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;
/** Signed actions more than this far from the server's clock are refused. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
