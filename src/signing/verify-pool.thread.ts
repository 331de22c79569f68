/** A verify-pool worker: Ed25519 checks off the request thread, keys cached as in the main thread. */
import { parentPort } from 'node:worker_threads';
import { Ed25519Verifier } from './ed25519-verifier.js';

export interface VerifyRequest {
  id: number;
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}
export type VerifyReply = { id: number; ok: boolean } | { id: number; error: string };

const verifier = new Ed25519Verifier();
parentPort!.on('message', (request: VerifyRequest) => {
  try {
    parentPort!.postMessage({ id: request.id, ok: verifier.verify(request.publicKey, request.message, request.signature) } satisfies VerifyReply);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies VerifyReply);
  }
});
