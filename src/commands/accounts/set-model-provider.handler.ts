import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { SetModelProvider, SetModelProviderResponse } from '../../protocol/providers.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { afterAppend, appendDecision, keptChanging, loadCredentials } from './account-stream.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { redactProvider } from './credentials.js';
import { parseName, parseProviderConfig } from './credentials-input.js';
import { decideSetModelProvider } from './providers.decider.js';

@Injectable()
export class SetModelProviderHandler implements ActionHandler<SetModelProvider, SetModelProviderResponse> {
  readonly action = 'SetModelProvider' as const;
  readonly fields = ['name', 'provider'] as const;
  private readonly logger = new Logger('SetModelProvider');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: SetModelProvider, context: ActionContext): Promise<SetModelProviderResponse> {
    const name = parseName(action.name, 'SetModelProvider.name');
    const config = parseProviderConfig(action.provider);
    // Decided against the stream as read: should a DeleteModelProvider remove a referenced secret
    // meanwhile, the append fails and the decision is made again, without that secret.
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { state, revision } = await loadCredentials(this.log, context.account);
      const events = decideSetModelProvider(state, { newId: randomUUID(), name, config });
      const at = Date.now();
      if (events.length) {
        const position = await appendDecision(this.log, context, revision, events, at);
        if (position === null) continue;
        await awaitProjections(this.projections, position, ['ModelProviderSet'], this.logger);
      }
      return { _: 'SetModelProviderResponse', provider: redactProvider(name, afterAppend(state, events, at).providers.get(name)!) };
    }
    throw keptChanging(context.account, `model provider "${name}" was set`);
  }
}
