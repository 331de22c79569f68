import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { DeleteModelProvider, DeleteModelProviderResponse } from '../../protocol/providers.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { SecretStore } from '../../secrets/secret-store.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { afterAppend, appendDecision, keptChanging, loadCredentials } from './account-stream.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { liveSecrets } from './credentials.js';
import { parseName } from './credentials-input.js';
import { decideDeleteModelProvider } from './providers.decider.js';
import { SecretWriteLock } from './secret-write-lock.js';

@Injectable()
export class DeleteModelProviderHandler implements ActionHandler<DeleteModelProvider, DeleteModelProviderResponse> {
  readonly action = 'DeleteModelProvider' as const;
  readonly fields = ['name'] as const;
  private readonly logger = new Logger('DeleteModelProvider');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly secrets: SecretStore,
    private readonly lock: SecretWriteLock,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: DeleteModelProvider, context: ActionContext): Promise<DeleteModelProviderResponse> {
    const name = parseName(action.name, 'DeleteModelProvider.name');
    const { account } = context;
    return this.lock.run(account, async () => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const { state, revision } = await loadCredentials(this.log, account);
        const events = decideDeleteModelProvider(state, { name });
        // The log first, then the store: the deletion is a fact once recorded, and the deleted
        // secrets' values are erased right after. Should the process die in between, the next prune
        // of this account's rows (its next SetSecret or DeleteModelProvider) erases them.
        const at = Date.now();
        const position = await appendDecision(this.log, context, revision, events, at);
        if (position === null) continue;
        try {
          await awaitProjections(this.projections, position, ['ModelProviderDeleted', 'SecretDeleted'], this.logger);
        } finally {
          this.secrets.retain(account, liveSecrets(afterAppend(state, events, at)));
        }
        return { _: 'DeleteModelProviderResponse', name };
      }
      throw keptChanging(account, `model provider "${name}" was deleted`);
    });
  }
}
