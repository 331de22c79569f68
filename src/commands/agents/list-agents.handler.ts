import { Injectable } from '@nestjs/common';
import type { AgentAccessRole, ListAgents, ListAgentsResponse } from '../../protocol/agents.js';
import type { AgentRow } from '../../projections/agents.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { agentInfo } from './agent-read.js';

/**
 * The account's own agents and those it is an accepted reader or writer of; never pending
 * invitations nor agents it reads only publicly (spec: ListAgents, SetAgentPublicRead).
 */
@Injectable()
export class ListAgentsHandler implements ActionHandler<ListAgents, ListAgentsResponse> {
  readonly action = 'ListAgents' as const;
  readonly fields = [] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(_: ListAgents, context: ActionContext): Promise<ListAgentsResponse> {
    const rows = this.projections.reader('agents').all<AgentRow & { access_role: AgentAccessRole }>(
      `SELECT a.*, 'owner' AS access_role FROM {agents} a WHERE a.owner_account_id = ? AND a.deleted = 0
       UNION ALL
       SELECT a.*, m.role AS access_role FROM {agent_members} m JOIN {agents} a ON a.id = m.agent_id
       WHERE m.account_id = ? AND m.accepted = 1 AND a.deleted = 0
       ORDER BY updated_at DESC, updated_commit DESC, updated_prepare DESC`,
      context.account,
      context.account,
    );
    return { _: 'ListAgentsResponse', agents: rows.map(({ access_role, ...row }) => agentInfo(row, access_role)) };
  }
}
