import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import type { Config } from './config/config.js';
import { EventsModule } from './events/events.module.js';
import { GatewayModule } from './gateway/gateway.module.js';
import { ProjectionsModule } from './projections/projections.module.js';
import { SecretsModule } from './secrets/secrets.module.js';
import { CommandsModule } from './commands/commands.module.js';
import { DispatcherModule } from './runtime/dispatcher/dispatcher.module.js';
import { SigningModule } from './signing/signing.module.js';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return { module: AppModule, imports: [ConfigModule.forRoot(config), EventsModule, ProjectionsModule, SecretsModule, SigningModule, CommandsModule, GatewayModule, ...(config.dispatchRuns ? [DispatcherModule] : [])] };
  }
}
