import { Injectable } from '@nestjs/common';
import type { GetAgent, GetAgentResponse } from '../../protocol/agents.js';
import type { AgentRow } from '../../projections/agents.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { ownerInfo, parseAgentId } from './agent-read.js';
import { agentNotFound } from './agents.decider.js';

@Injectable()
export class GetAgentHandler implements ActionHandler<GetAgent, GetAgentResponse> {
  readonly action = 'GetAgent' as const;
  readonly fields = ['agentId'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: GetAgent, context: ActionContext): Promise<GetAgentResponse> {
    const agentId = parseAgentId(action.agentId, 'GetAgent.agentId');
    const row = this.projections
      .reader('agents')
      .get<AgentRow>('SELECT * FROM {agents} WHERE id = ? AND owner_account_id = ? AND deleted = 0', agentId, context.account);
    if (!row) throw agentNotFound();
    // Sessions do not exist yet: an agent has none.
    return { _: 'GetAgentResponse', agent: ownerInfo(row), sessionCount: 0 };
  }
}
