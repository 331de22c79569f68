import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ActionRegistry } from '../action-registry.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { CreateAgentHandler } from './create-agent.handler.js';
import { DeleteAgentHandler } from './delete-agent.handler.js';
import { GetAgentHandler } from './get-agent.handler.js';
import { ListAgentsHandler } from './list-agents.handler.js';
import { UpdateAgentHandler } from './update-agent.handler.js';
import {
  InviteAgentCollaboratorHandler,
  RemoveAgentCollaboratorHandler,
  AcceptAgentInviteHandler,
  DeclineAgentInviteHandler,
  SetAgentPublicReadHandler,
  SetAgentPublicChatHandler,
  ListAgentInvitesHandler,
  ListAgentCollaboratorsHandler,
} from './sharing.handlers.js';

const SHARING = [InviteAgentCollaboratorHandler, RemoveAgentCollaboratorHandler, AcceptAgentInviteHandler, DeclineAgentInviteHandler, SetAgentPublicReadHandler, SetAgentPublicChatHandler, ListAgentInvitesHandler, ListAgentCollaboratorsHandler];

@Module({
  imports: [SessionsModule],
  providers: [CreateAgentHandler, GetAgentHandler, UpdateAgentHandler, DeleteAgentHandler, ListAgentsHandler, ...SHARING],
})
export class AgentsModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly createAgent: CreateAgentHandler,
    private readonly getAgent: GetAgentHandler,
    private readonly updateAgent: UpdateAgentHandler,
    private readonly deleteAgent: DeleteAgentHandler,
    private readonly listAgents: ListAgentsHandler,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.createAgent);
    this.registry.register(this.getAgent);
    this.registry.register(this.updateAgent);
    this.registry.register(this.deleteAgent);
    this.registry.register(this.listAgents);
    for (const handler of SHARING) this.registry.register(this.moduleRef.get(handler));
  }
}
