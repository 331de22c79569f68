import { Module, type OnModuleInit } from '@nestjs/common';
import { ActionRegistry } from '../action-registry.js';
import { CreateAgentHandler } from './create-agent.handler.js';
import { DeleteAgentHandler } from './delete-agent.handler.js';
import { GetAgentHandler } from './get-agent.handler.js';
import { ListAgentsHandler } from './list-agents.handler.js';
import { UpdateAgentHandler } from './update-agent.handler.js';

@Module({
  providers: [CreateAgentHandler, GetAgentHandler, UpdateAgentHandler, DeleteAgentHandler, ListAgentsHandler],
})
export class AgentsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly createAgent: CreateAgentHandler,
    private readonly getAgent: GetAgentHandler,
    private readonly updateAgent: UpdateAgentHandler,
    private readonly deleteAgent: DeleteAgentHandler,
    private readonly listAgents: ListAgentsHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.createAgent);
    this.registry.register(this.getAgent);
    this.registry.register(this.updateAgent);
    this.registry.register(this.deleteAgent);
    this.registry.register(this.listAgents);
  }
}
