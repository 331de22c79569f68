import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { DeleteAgent, DeleteAgentResponse } from '../../protocol/agents.js';
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
  ) {}

  async handle(action: DeleteAgent, context: ActionContext): Promise<DeleteAgentResponse> {
    const agentId = parseAgentId(action.agentId, 'DeleteAgent.agentId');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { agent, revision } = await loadAgent(this.log, agentId);
      const events = decideDeleteAgent(agent, { account: context.account });
      const position = await appendAgentDecision(this.log, context, agentId, revision, events, Date.now());
      if (position === null) continue;
      await awaitProjections(this.projections, position, ['AgentDeleted'], this.logger);
      return { _: 'DeleteAgentResponse', agentId };
    }
    throw agentKeptChanging(agentId, 'it was deleted');
  }
}
