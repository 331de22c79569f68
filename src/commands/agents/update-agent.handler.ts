import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { UpdateAgent, UpdateAgentResponse } from '../../protocol/agents.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { loadCredentials } from '../accounts/account-stream.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { parseAgentId } from './agent-read.js';
import { agentView, roleOf } from './agent-state.js';
import { agentAfterAppend, agentKeptChanging, appendAgentDecision, loadAgent } from './agent-stream.js';
import { decideUpdateAgent } from './agents.decider.js';
import { markdownToBlocks } from './prompt-blocks.js';

@Injectable()
export class UpdateAgentHandler implements ActionHandler<UpdateAgent, UpdateAgentResponse> {
  readonly action = 'UpdateAgent' as const;
  readonly fields = ['agentId', 'definition'] as const;
  private readonly logger = new Logger('UpdateAgent');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: UpdateAgent, context: ActionContext): Promise<UpdateAgentResponse> {
    const agentId = parseAgentId(action.agentId, 'UpdateAgent.agentId');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { agent, revision } = await loadAgent(this.log, agentId);
      // A writer's update is checked against the owner's providers and keys: the agent runs on them.
      const { state: credentials } = await loadCredentials(this.log, agent?.ownerAccountId ?? context.account);
      const command = { account: context.account, definition: action.definition };
      const events = decideUpdateAgent(agent, command, { credentials, markdownToBlocks });
      const at = Date.now();
      if (events.length) {
        const position = await appendAgentDecision(this.log, context, agentId, revision, events, at);
        if (position === null) continue;
        await awaitProjections(this.projections, position, ['AgentUpdated'], this.logger);
      }
      // decideUpdateAgent refuses a missing agent and anyone but its owner and writers.
      const after = agentAfterAppend(agent, agentId, events, at)!;
      return { _: 'UpdateAgentResponse', agent: agentView(after, roleOf(after, context.account)!) };
    }
    throw agentKeptChanging(agentId, 'it was updated');
  }
}
