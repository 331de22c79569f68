import { Injectable } from '@nestjs/common';
import type { ActionBase } from '../../protocol/envelope.js';
import { ProjectionService } from '../../projections/projection-service.js';

/**
 * May `signer` sign for `account`? The account itself always; a delegated key once the account's
 * SignerAuthorized event is projected. RegisterSigner is let through: its own capability is the
 * authorization, which its handler verifies before anything is recorded.
 */
@Injectable()
export class SignerAuthorization {
  constructor(private readonly projections: ProjectionService) {}

  isAuthorized(account: string, signer: string, action: ActionBase): boolean {
    if (signer === account || action._ === 'RegisterSigner') return true;
    return (
      this.projections
        .reader('account_signers')
        .get('SELECT 1 AS ok FROM {signers} WHERE account_id = ? AND signer = ?', account, signer) !== undefined
    );
  }
}
