import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { MessageController } from './message.controller.js';
import { MessageService } from './message.service.js';
import { VersionController } from './version.controller.js';

@Module({ controllers: [HealthController, VersionController, MessageController], providers: [MessageService] })
export class GatewayModule {}
