import { Inject, Injectable } from '@nestjs/common';
import { SignerAuthorization } from '../../commands/accounts/signer-authorization.js';
import { ENVELOPE_VERIFIER } from '../../signing/signing.module.js';
import type { AsyncVerifier } from '../../signing/verify-pool.js';
import { verifyEnvelope, type VerifiedAction } from './verify-envelope.js';

/**
 * The one verification path of a signed action, whatever carried it (POST /api/message, a Subscribe
 * on /agents/ws): decoded and canonical, the envelope's shape, principal and signature byte shapes,
 * `ts` within the window, the Ed25519 signature (on the verify pool), the signer authorized for the
 * account, the client's protocol.
 */
@Injectable()
export class ActionVerifier {
  constructor(
    private readonly authorization: SignerAuthorization,
    @Inject(ENVELOPE_VERIFIER) private readonly verifier: AsyncVerifier,
  ) {}

  verify(bytes: Uint8Array): Promise<VerifiedAction> {
    return verifyEnvelope(bytes, {
      now: Date.now,
      verifier: this.verifier,
      isAuthorized: (account, signer, action) => this.authorization.isAuthorized(account, signer, action),
    });
  }
}
