import { Module } from '@nestjs/common';
import { PartialBusModule } from '../events/partial-bus.js';
import { ActionVerifier } from './envelope/action-verifier.js';
import { HealthController } from './health.controller.js';
import { MessageController } from './message.controller.js';
import { MessageService } from './message.service.js';
import { VersionController } from './version.controller.js';
import { WS_PROVIDERS } from './ws/ws.providers.js';

@Module({
  imports: [PartialBusModule],
  controllers: [HealthController, VersionController, MessageController],
  providers: [ActionVerifier, MessageService, ...WS_PROVIDERS],
})
export class GatewayModule {}
