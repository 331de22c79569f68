import { Injectable } from '@nestjs/common';
import type { GetAgent, GetAgentResponse } from '../../protocol/agents.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { agentInfo, parseAgentId, readAccess } from './agent-read.js';
import { agentNotFound } from './agents.decider.js';

/** Anyone with a role on the agent reads it: owner, accepted writer or reader, or anyone while public read is on. */
@Injectable()
export class GetAgentHandler implements ActionHandler<GetAgent, GetAgentResponse> {
  readonly action = 'GetAgent' as const;
  readonly fields = ['agentId'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: GetAgent, context: ActionContext): Promise<GetAgentResponse> {
    const agentId = parseAgentId(action.agentId, 'GetAgent.agentId');
    const access = readAccess(this.projections, agentId, context.account);
    if (!access) throw agentNotFound();
    // Sessions do not exist yet: an agent has none.
    return { _: 'GetAgentResponse', agent: agentInfo(access.row, access.role), sessionCount: 0 };
  }
}
