import { Injectable } from '@nestjs/common';
import type { ListAgents, ListAgentsResponse } from '../../protocol/agents.js';
import type { AgentRow } from '../../projections/agents.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { ownerInfo } from './agent-read.js';

@Injectable()
export class ListAgentsHandler implements ActionHandler<ListAgents, ListAgentsResponse> {
  readonly action = 'ListAgents' as const;
  readonly fields = [] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(_: ListAgents, context: ActionContext): Promise<ListAgentsResponse> {
    const rows = this.projections
      .reader('agents')
      .all<AgentRow>(
        'SELECT * FROM {agents} WHERE owner_account_id = ? AND deleted = 0 ORDER BY updated_at DESC, updated_commit DESC, updated_prepare DESC',
        context.account,
      );
    return { _: 'ListAgentsResponse', agents: rows.map(ownerInfo) };
  }
}
