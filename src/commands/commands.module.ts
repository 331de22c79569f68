import { Global, Module } from '@nestjs/common';
import { ActionRegistry } from './action-registry.js';
import { AccountsModule } from './accounts/accounts.module.js';
import { AgentsModule } from './agents/agents.module.js';

@Global()
@Module({
  imports: [AccountsModule, AgentsModule],
  providers: [ActionRegistry],
  exports: [ActionRegistry, AccountsModule],
})
export class CommandsModule {}
