import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../../protocol/api-error.js';
import type { ActionBase } from '../../protocol/envelope.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { CAPABILITY_VERIFIER, type CapabilityVerifier } from './capability-verifier.js';
import { checkSigningGrant } from './signers.decider.js';

/**
 * May `signer` sign for `account`? The account itself always; a delegated key once the account's
 * SignerAuthorized event is projected. A RegisterSigner is authorized by the capability it carries,
 * checked here in full — before the request can record anything (an idempotency claim included)
 * under the account's name.
 */
@Injectable()
export class SignerAuthorization {
  constructor(
    private readonly projections: ProjectionService,
    @Inject(CAPABILITY_VERIFIER) private readonly verifyCapability: CapabilityVerifier,
  ) {}

  isAuthorized(account: string, signer: string, action: ActionBase & Record<string, unknown>): boolean {
    if (signer === account) return true;
    if (action._ === 'RegisterSigner') {
      checkSigningGrant({ account, signer, capability: this.verifyCapability(capabilityBytes(action.capability)) });
      return true;
    }
    return (
      this.projections
        .reader('account_signers')
        .get('SELECT 1 AS ok FROM {signers} WHERE account_id = ? AND signer = ?', account, signer) !== undefined
    );
  }
}

export function capabilityBytes(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new ApiError(400, 'RegisterSigner.capability must be the Capability blob’s DAG-CBOR bytes');
  }
  return value;
}
