/** Actions that authorize delegated keys to sign for an account (issue 4, "Signer authorization"). */
import type { ActionBase } from './envelope.js';

/**
 * Registers a delegated signer: `capability` is a signed Capability blob (DAG-CBOR bytes, as
 * `@seed-hypermedia/client`'s `createCapability` encodes it) issued by the account, with role AGENT
 * or WRITER and the envelope's signer as delegate.
 */
export interface RegisterSigner extends ActionBase {
  _: 'RegisterSigner';
  capability: Uint8Array;
}

export interface RegisterSignerResponse {
  _: 'RegisterSignerResponse';
  /** base58btc principal of the authorized signer. */
  signer: string;
  role: 'AGENT' | 'WRITER';
  /** CID of the capability blob. */
  capability: string;
}

export interface ListSigners extends ActionBase {
  _: 'ListSigners';
}

export interface SignerInfo {
  signer: string;
  role: 'AGENT' | 'WRITER';
  capability: string;
  label?: string;
  authorizedAt: number;
}

export interface ListSignersResponse {
  _: 'ListSignersResponse';
  signers: SignerInfo[];
}
