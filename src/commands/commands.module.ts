import { Global, Module } from '@nestjs/common';
import { ActionRegistry } from './action-registry.js';
import { AccountsModule } from './accounts/accounts.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { SessionsModule } from './sessions/sessions.module.js';

@Global()
@Module({
  imports: [AccountsModule, AgentsModule, SessionsModule],
  providers: [ActionRegistry],
  exports: [ActionRegistry, AccountsModule, SessionsModule],
})
export class CommandsModule {}
