import { Global, Module } from '@nestjs/common';
import { ActionRegistry } from './action-registry.js';
import { AccountsModule } from './accounts/accounts.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { RunsModule } from './runs/runs.module.js';
import { SessionsModule } from './sessions/sessions.module.js';

@Global()
@Module({
  imports: [AccountsModule, AgentsModule, SessionsModule, RunsModule],
  providers: [ActionRegistry],
  exports: [ActionRegistry, AccountsModule, SessionsModule],
})
export class CommandsModule {}
