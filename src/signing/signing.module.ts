import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CAPABILITY_VERIFIER } from '../commands/accounts/capability-verifier.js';
import { verifyCapability } from './capability.js';
import { Ed25519Verifier } from './ed25519-verifier.js';
import { Ed25519VerifyPool } from './verify-pool.js';

export const ED25519_VERIFIER = Symbol('Ed25519Verifier');
/** Envelope signatures, verified off the request thread. */
export const ENVELOPE_VERIFIER = Symbol('EnvelopeVerifier');

/**
 * Ed25519 for envelopes (a worker pool: one verify per request) and for Capability blobs (rare, in
 * the request thread).
 */
@Global()
@Module({
  providers: [
    { provide: ED25519_VERIFIER, useFactory: () => new Ed25519Verifier() },
    { provide: ENVELOPE_VERIFIER, useFactory: () => new Ed25519VerifyPool() },
    {
      provide: CAPABILITY_VERIFIER,
      inject: [ED25519_VERIFIER],
      useFactory: (verifier: Ed25519Verifier) => (bytes: Uint8Array) => verifyCapability(bytes, verifier),
    },
  ],
  exports: [ED25519_VERIFIER, ENVELOPE_VERIFIER, CAPABILITY_VERIFIER],
})
export class SigningModule implements OnApplicationShutdown {
  constructor(@Inject(ENVELOPE_VERIFIER) private readonly pool: Ed25519VerifyPool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}
