import { Global, Module } from '@nestjs/common';
import { CAPABILITY_VERIFIER } from '../commands/accounts/capability-verifier.js';
import { verifyCapability } from './capability.js';
import { Ed25519Verifier } from './ed25519-verifier.js';

export const ED25519_VERIFIER = Symbol('Ed25519Verifier');

/** One verifier (and its key cache) for envelopes and Capability blobs alike. */
@Global()
@Module({
  providers: [
    { provide: ED25519_VERIFIER, useFactory: () => new Ed25519Verifier() },
    {
      provide: CAPABILITY_VERIFIER,
      inject: [ED25519_VERIFIER],
      useFactory: (verifier: Ed25519Verifier) => (bytes: Uint8Array) => verifyCapability(bytes, verifier),
    },
  ],
  exports: [ED25519_VERIFIER, CAPABILITY_VERIFIER],
})
export class SigningModule {}
