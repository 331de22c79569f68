import { Injectable } from '@nestjs/common';
import type { GetAgent, GetAgentResponse } from '../../protocol/agents.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { agentInfo, parseAgentId, readAccess } from './agent-read.js';
import { agentNotFound } from './agents.decider.js';
import { CHILD_COUNT_SQL, sessionInfo, type ListedSessionRow } from '../sessions/session-read.js';

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
    const sessions = this.projections.reader('session_view');
    const { count } = sessions.get<{ count: number }>('SELECT COUNT(*) AS count FROM {sessions} WHERE agent_id = ? AND deleted = 0', agentId)!;
    const response: GetAgentResponse = { _: 'GetAgentResponse', agent: agentInfo(access.row, access.role), sessionCount: count };
    if (context.protocol >= 2) return response;
    const rows = sessions.all<ListedSessionRow>(
      `SELECT s.*, ${CHILD_COUNT_SQL} AS child_session_count FROM {sessions} s WHERE s.agent_id = ? AND s.deleted = 0
       ORDER BY s.updated_at DESC, s.session_id DESC`,
      agentId,
    );
    return { ...response, sessionCount: rows.length, sessions: rows.map(sessionInfo) };
  }
}
