import { Module } from '@nestjs/common';
import { SessionsModule } from '../../commands/sessions/sessions.module.js';
import { RuntimeModule } from '../runtime.module.js';
import { RunDispatcher } from './run-dispatcher.js';

/** The run dispatcher and the executor it hands claimed runs to. */
@Module({
  imports: [RuntimeModule, SessionsModule],
  providers: [RunDispatcher],
  exports: [RunDispatcher],
})
export class DispatcherModule {}
