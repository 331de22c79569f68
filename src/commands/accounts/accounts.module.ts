import { Module, type OnModuleInit } from '@nestjs/common';
import { ActionRegistry } from '../action-registry.js';
import { DeleteModelProviderHandler } from './delete-model-provider.handler.js';
import { ListModelProvidersHandler } from './list-model-providers.handler.js';
import { ListProviderModelsHandler } from './list-provider-models.handler.js';
import { ListSignersHandler } from './list-signers.handler.js';
import { RegisterSignerHandler } from './register-signer.handler.js';
import { SecretWriteLock } from './secret-write-lock.js';
import { SetModelProviderHandler } from './set-model-provider.handler.js';
import { SetSecretHandler } from './set-secret.handler.js';
import { SignerAuthorization } from './signer-authorization.js';

@Module({
  providers: [
    RegisterSignerHandler,
    ListSignersHandler,
    SignerAuthorization,
    SecretWriteLock,
    SetSecretHandler,
    SetModelProviderHandler,
    DeleteModelProviderHandler,
    ListModelProvidersHandler,
    ListProviderModelsHandler,
  ],
  exports: [SignerAuthorization],
})
export class AccountsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly registerSigner: RegisterSignerHandler,
    private readonly listSigners: ListSignersHandler,
    private readonly setSecret: SetSecretHandler,
    private readonly setModelProvider: SetModelProviderHandler,
    private readonly deleteModelProvider: DeleteModelProviderHandler,
    private readonly listModelProviders: ListModelProvidersHandler,
    private readonly listProviderModels: ListProviderModelsHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.registerSigner);
    this.registry.register(this.listSigners);
    this.registry.register(this.setSecret);
    this.registry.register(this.setModelProvider);
    this.registry.register(this.deleteModelProvider);
    this.registry.register(this.listModelProviders);
    this.registry.register(this.listProviderModels);
  }
}
