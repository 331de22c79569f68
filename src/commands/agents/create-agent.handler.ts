import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { CreateAgent, CreateAgentResponse } from '../../protocol/agents.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { loadCredentials } from '../accounts/account-stream.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { agentKeptChanging, appendAgentDecision, loadAgent, newAgentId } from './agent-stream.js';
import { decideCreateAgent } from './agents.decider.js';
import { markdownToBlocks } from './prompt-blocks.js';

@Injectable()
export class CreateAgentHandler implements ActionHandler<CreateAgent, CreateAgentResponse> {
  readonly action = 'CreateAgent' as const;
  readonly fields = ['definition', 'clientRequestId'] as const;
  readonly idempotent = true;
  private readonly logger = new Logger('CreateAgent');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: CreateAgent, context: ActionContext): Promise<CreateAgentResponse> {
    const agentId = newAgentId(context, randomUUID);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      // The provider is checked as the account's stream has it now; a provider deleted after this
      // read leaves an agent naming a missing provider, which its runs must report anyway.
      const { state: credentials } = await loadCredentials(this.log, context.account);
      const { agent, revision } = await loadAgent(this.log, agentId);
      const command = { agentId, account: context.account, definition: action.definition };
      const events = decideCreateAgent(agent, command, { credentials, markdownToBlocks });
      if (events.length) {
        const position = await appendAgentDecision(this.log, context, agentId, revision, events, Date.now());
        if (position === null) continue;
        await awaitProjections(this.projections, position, ['AgentCreated'], this.logger);
      }
      return { _: 'CreateAgentResponse', agentId };
    }
    throw agentKeptChanging(agentId, 'it was created');
  }
}
