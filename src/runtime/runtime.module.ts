/**
 * The runtime's providers: the agent turn executor, as the dispatcher's RUN_EXECUTOR, and what it
 * runs on — the verb registry, session titling, and the partial bus its live progress goes to.
 */
import { Module } from '@nestjs/common';
import { SessionsModule } from '../commands/sessions/sessions.module.js';
import { PartialBus, PartialBusModule } from '../events/partial-bus.js';
import { planVerb } from '../verbs/plan.js';
import { VerbRegistry } from '../verbs/registry.js';
import { statusVerb } from '../verbs/status.js';
import { RUN_EXECUTOR } from './run-executor.js';
import { AgentTurnExecutor } from './turn/agent-turn.executor.js';
import { PARTIAL_SINK, type PartialSink } from './turn/partial-sink.js';
import { SessionTitles } from './turn/session-title.js';

@Module({
  imports: [SessionsModule, PartialBusModule],
  providers: [
    AgentTurnExecutor,
    { provide: RUN_EXECUTOR, useExisting: AgentTurnExecutor },
    SessionTitles,
    { provide: VerbRegistry, useValue: new VerbRegistry([planVerb, statusVerb]) },
    {
      provide: PARTIAL_SINK,
      inject: [PartialBus],
      useFactory: (bus: PartialBus): PartialSink => ({ publish: (sessionId, partialId, patch) => bus.publishSessionPartial(sessionId, partialId, patch) }),
    },
  ],
  exports: [RUN_EXECUTOR, AgentTurnExecutor, VerbRegistry],
})
export class RuntimeModule {}
