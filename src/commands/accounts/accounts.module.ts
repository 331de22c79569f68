import { Module, type OnModuleInit } from '@nestjs/common';
import { ActionRegistry } from '../action-registry.js';
import { ListSignersHandler } from './list-signers.handler.js';
import { RegisterSignerHandler } from './register-signer.handler.js';
import { SignerAuthorization } from './signer-authorization.js';

@Module({
  providers: [RegisterSignerHandler, ListSignersHandler, SignerAuthorization],
  exports: [SignerAuthorization],
})
export class AccountsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly registerSigner: RegisterSignerHandler,
    private readonly listSigners: ListSignersHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.registerSigner);
    this.registry.register(this.listSigners);
  }
}
