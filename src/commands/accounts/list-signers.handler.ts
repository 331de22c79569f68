import { Injectable } from '@nestjs/common';
import type { ListSigners, ListSignersResponse } from '../../protocol/signers.js';
import type { AccountSignerRow } from '../../projections/account-signers.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';

@Injectable()
export class ListSignersHandler implements ActionHandler<ListSigners, ListSignersResponse> {
  readonly action = 'ListSigners' as const;
  readonly fields = [] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(_: ListSigners, context: ActionContext): Promise<ListSignersResponse> {
    const rows = this.projections
      .reader('account_signers')
      .all<AccountSignerRow>('SELECT * FROM {signers} WHERE account_id = ? ORDER BY authorized_at, signer', context.account);
    return {
      _: 'ListSignersResponse',
      signers: rows.map((r) => ({
        signer: r.signer,
        role: r.role,
        capability: r.capability,
        ...(r.label === null ? {} : { label: r.label }),
        authorizedAt: r.authorized_at,
      })),
    };
  }
}
