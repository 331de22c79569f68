import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ActionRegistry } from '../action-registry.js';
import { CancelRunHandler, GetRunHandler, ListRunsHandler, RetrySessionHandler } from './runs.handlers.js';

const HANDLERS = [GetRunHandler, ListRunsHandler, CancelRunHandler, RetrySessionHandler];

@Module({ providers: HANDLERS })
export class RunsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const handler of HANDLERS) this.registry.register(this.moduleRef.get(handler));
  }
}
