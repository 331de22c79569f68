import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ActionRegistry } from '../action-registry.js';
import { ListSessionsHandler } from './list-sessions.handler.js';
import { SessionWriter } from './session-writer.js';
import {
  CreateSessionHandler,
  DeleteSessionHandler,
  GetSessionHandler,
  MessageSessionHandler,
  StopSessionHandler,
  UpdateSessionHandler,
} from './sessions.handlers.js';

const HANDLERS = [CreateSessionHandler, ListSessionsHandler, UpdateSessionHandler, DeleteSessionHandler, GetSessionHandler, MessageSessionHandler, StopSessionHandler];

@Module({
  providers: [SessionWriter, ...HANDLERS],
  exports: [SessionWriter],
})
export class SessionsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const handler of HANDLERS) this.registry.register(this.moduleRef.get(handler));
  }
}
