import { Injectable } from '@nestjs/common';
import type { ListModelProviders, ListModelProvidersResponse, ModelProviderConfig } from '../../protocol/providers.js';
import type { AccountProviderRow } from '../../projections/account-providers.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { redactProvider } from './credentials.js';

@Injectable()
export class ListModelProvidersHandler implements ActionHandler<ListModelProviders, ListModelProvidersResponse> {
  readonly action = 'ListModelProviders' as const;
  readonly fields = [] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(_: ListModelProviders, context: ActionContext): Promise<ListModelProvidersResponse> {
    const rows = this.projections
      .reader('account_providers')
      .all<AccountProviderRow>('SELECT * FROM {providers} WHERE account_id = ? ORDER BY name', context.account);
    return {
      _: 'ListModelProvidersResponse',
      providers: rows.map((row) =>
        redactProvider(row.name, {
          id: row.id,
          config: JSON.parse(row.config) as ModelProviderConfig,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        }),
      ),
    };
  }
}
