import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { SetSecret, SetSecretResponse } from '../../protocol/secrets.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { SecretStore } from '../../secrets/secret-store.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { afterAppend, appendDecision, keptChanging, loadCredentials } from './account-stream.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { liveSecrets, redactSecret } from './credentials.js';
import { parseName, parseSecretMetadata, parseSecretValue } from './credentials-input.js';
import { decideSetSecret } from './secrets.decider.js';
import { SecretWriteLock } from './secret-write-lock.js';

@Injectable()
export class SetSecretHandler implements ActionHandler<SetSecret, SetSecretResponse> {
  readonly action = 'SetSecret' as const;
  /**
   * Not idempotent by client request id, on purpose: the idempotency stream records a hash of the
   * whole payload, and a hash of a low-entropy value is a guess away from the value.
   */
  readonly fields = ['name', 'value', 'metadata'] as const;
  private readonly logger = new Logger('SetSecret');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly secrets: SecretStore,
    private readonly lock: SecretWriteLock,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: SetSecret, context: ActionContext): Promise<SetSecretResponse> {
    const name = parseName(action.name, 'SetSecret.name');
    const value = parseSecretValue(action.value);
    const metadata = parseSecretMetadata(action.metadata);
    const { account } = context;
    const fingerprint = this.secrets.fingerprint(account, value);
    return this.lock.run(account, async () => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const { state, revision } = await loadCredentials(this.log, account);
        const events = decideSetSecret(state, { newId: randomUUID(), name, fingerprint, ...(metadata ? { metadata } : {}) });
        if (!events.length) {
          // Nothing to record, but the value may be missing from the store (a restored secrets.db, an
          // append that committed after it reported a failure): sending it again repairs that.
          this.secrets.put(account, name, fingerprint, value);
          return { _: 'SetSecretResponse', secret: redactSecret(name, state.secrets.get(name)!) };
        }
        // The value is stored before the log records it, never after: a SecretSet in the log promises
        // that its value can be read. Stored first, a failure between the two writes leaves a row the
        // log does not name — removed just below, or by the next prune — never a secret the log shows
        // whose value is missing. Rows are per fingerprint, so the value the log names now stays
        // readable until the append succeeds.
        const stored = this.secrets.put(account, name, fingerprint, value);
        const at = Date.now();
        // Removed again only when the append surely did not happen (a lost race): after an error it
        // may have committed, and the row must then stay; the next prune removes it if not.
        const position = await appendDecision(this.log, context, revision, events, at);
        if (position === null) {
          if (stored) this.secrets.remove(account, name, fingerprint);
          continue;
        }
        const next = afterAppend(state, events, at);
        // Pruned only once the read model names the new value, so no reader looks for a pruned row;
        // while it lags, the old row stays until the next prune.
        if (await awaitProjections(this.projections, position, ['SecretSet'], this.logger)) {
          this.secrets.retain(account, liveSecrets(next));
        }
        return { _: 'SetSecretResponse', secret: redactSecret(name, next.secrets.get(name)!) };
      }
      throw keptChanging(account, `secret "${name}" was set`);
    });
  }
}
