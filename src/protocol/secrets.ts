/** Account secrets (spec/http-api.md, "SetSecret"): values go in, only redacted records come out. */
import type { ActionBase } from './envelope.js';

export const MAX_SECRET_NAME_LENGTH = 128;
export const MAX_SECRET_VALUE_BYTES = 64 * 1024;
/** Of the metadata as JSON: it is recorded in the log, unlike the value. */
export const MAX_SECRET_METADATA_BYTES = 4 * 1024;

/** Encrypts and upserts the secret `name` of the signed account. */
export interface SetSecret extends ActionBase {
  _: 'SetSecret';
  name: string;
  value: Uint8Array;
  metadata?: Record<string, unknown>;
}

/** A secret as the API shows it: everything but the value. */
export interface RedactedSecret {
  id: string;
  name: string;
  metadata?: Record<string, unknown>;
  hasValue: true;
  createdAt: number;
  updatedAt: number;
}

export interface SetSecretResponse {
  _: 'SetSecretResponse';
  secret: RedactedSecret;
}
