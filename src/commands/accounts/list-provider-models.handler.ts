import { Injectable } from '@nestjs/common';
import { ApiError } from '../../protocol/api-error.js';
import type { ListProviderModels, ListProviderModelsResponse, ModelProviderConfig } from '../../protocol/providers.js';
import type { AccountProviderRow } from '../../projections/account-providers.projection.js';
import type { AccountSecretRow } from '../../projections/account-secrets.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { listModels } from '../../providers/model-list.js';
import { resolveBaseUrl } from '../../providers/provider-specs.js';
import { SecretStore } from '../../secrets/secret-store.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { parseName } from './credentials-input.js';

@Injectable()
export class ListProviderModelsHandler implements ActionHandler<ListProviderModels, ListProviderModelsResponse> {
  readonly action = 'ListProviderModels' as const;
  readonly fields = ['provider'] as const;

  constructor(
    private readonly projections: ProjectionService,
    private readonly secrets: SecretStore,
  ) {}

  async handle(action: ListProviderModels, context: ActionContext): Promise<ListProviderModelsResponse> {
    const name = parseName(action.provider, 'ListProviderModels.provider');
    const row = this.projections
      .reader('account_providers')
      .get<AccountProviderRow>('SELECT * FROM {providers} WHERE account_id = ? AND name = ?', context.account, name);
    if (!row) throw new ApiError(404, `Model provider "${name}" not found for this account; ListModelProviders lists its providers`);
    const config = JSON.parse(row.config) as ModelProviderConfig;
    const models = await listModels({
      provider: name,
      type: config.type,
      baseUrl: resolveBaseUrl(config.type, config.baseUrl),
      apiKey: config.secretRefs?.apiKey === undefined ? null : this.apiKey(context.account, name, config.secretRefs.apiKey),
    });
    return { _: 'ListProviderModelsResponse', models };
  }

  /**
   * Decrypted into memory for this one request. The read model and the store are read together, with
   * no await between, so a SetSecret cannot prune the row in between.
   */
  private apiKey(account: string, provider: string, secret: string): string {
    const row = this.projections
      .reader('account_secrets')
      .get<Pick<AccountSecretRow, 'fingerprint'>>('SELECT fingerprint FROM {secrets} WHERE account_id = ? AND name = ?', account, secret);
    const value = row ? this.secrets.reveal(account, secret, row.fingerprint) : null;
    if (value === null) {
      throw new ApiError(
        409,
        `Secret "${secret}", the API key of model provider "${provider}", has no value in this server's secret store; ` +
          'store it again with SetSecret',
        'secret_unavailable',
      );
    }
    // Keys never contain whitespace, and a pasted one often ends in a newline that would make the header invalid.
    const key = value.toString('utf8').trim();
    // Anything else that is not printable ASCII would make the HTTP header itself invalid, and the
    // header library's error quotes the value: refuse it here, without echoing it.
    if (!/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError(
        400,
        `Secret "${secret}", the API key of model provider "${provider}", is not a usable API key: it must be ` +
          'printable ASCII without spaces or line breaks; store the key alone with SetSecret',
      );
    }
    return key;
  }
}
