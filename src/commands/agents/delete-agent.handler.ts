import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { DeleteAgent, DeleteAgentResponse } from '../../protocol/agents.js';
import { ApiError } from '../../protocol/api-error.js';
import { deleteSession } from '../sessions/sessions.handlers.js';
import { SessionWriter } from '../sessions/session-writer.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { parseAgentId } from './agent-read.js';
import { agentKeptChanging, appendAgentDecision, loadAgent } from './agent-stream.js';
import { decideDeleteAgent } from './agents.decider.js';

@Injectable()
export class DeleteAgentHandler implements ActionHandler<DeleteAgent, DeleteAgentResponse> {
  readonly action = 'DeleteAgent' as const;
  readonly fields = ['agentId'] as const;
  private readonly logger = new Logger('DeleteAgent');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
    private readonly sessions: SessionWriter,
  ) {}

  async handle(action: DeleteAgent, context: ActionContext): Promise<DeleteAgentResponse> {
    const agentId = parseAgentId(action.agentId, 'DeleteAgent.agentId');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { agent, revision } = await loadAgent(this.log, agentId);
      const events = decideDeleteAgent(agent, { account: context.account });
      const position = await appendAgentDecision(this.log, context, agentId, revision, events, Date.now());
      if (position === null) continue;
      await awaitProjections(this.projections, position, ['AgentDeleted'], this.logger);
      await this.deleteSessions(context, agentId);
      return { _: 'DeleteAgentResponse', agentId };
    }
    throw agentKeptChanging(agentId, 'it was deleted');
  }

  /**
   * The agent's sessions go with it, their live runs canceled first; run history stays, detached.
   * Until each is removed, the agent's deletion already hides it from every read.
   */
  private async deleteSessions(context: ActionContext, agentId: string): Promise<void> {
    const sessions = this.projections.reader('session_view').all<{ session_id: string }>('SELECT session_id FROM {sessions} WHERE agent_id = ?', agentId);
    for (const { session_id } of sessions) {
      try {
        await deleteSession(this.sessions, context, session_id, true);
      } catch (error) {
        // Deleted before the agent was: nothing left to do for it.
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
  }
}
