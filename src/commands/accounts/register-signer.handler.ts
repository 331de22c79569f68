import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../events/store/errors.js';
import type { RegisterSigner, RegisterSignerResponse } from '../../protocol/signers.js';
import { ProjectionService, ProjectionTimeoutError } from '../../projections/projection-service.js';
import { ApiError } from '../../protocol/api-error.js';
import { eventContextOf, eventIdFor } from '../action-context.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { CAPABILITY_VERIFIER, type CapabilityVerifier } from './capability-verifier.js';
import { capabilityBytes } from './signer-authorization.js';
import { decideRegisterSigner, evolveSigners, type SignersState } from './signers.decider.js';

const MAX_ATTEMPTS = 3;

@Injectable()
export class RegisterSignerHandler implements ActionHandler<RegisterSigner, RegisterSignerResponse> {
  readonly action = 'RegisterSigner' as const;
  readonly fields = ['capability', 'clientRequestId'] as const;
  readonly idempotent = true;
  private readonly logger = new Logger('RegisterSigner');

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(CAPABILITY_VERIFIER) private readonly verifyCapability: CapabilityVerifier,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: RegisterSigner, context: ActionContext): Promise<RegisterSignerResponse> {
    const capability = this.verifyCapability(capabilityBytes(action.capability));
    const stream = `account-${context.account}`;
    // Decide against the stream as read; if another command appended meanwhile, decide again.
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(stream);
      const events = decideRegisterSigner(state, { account: context.account, signer: context.signer, capability }).map(
        (event, index) => ({ ...event, id: eventIdFor(context, index) }),
      );
      const response: RegisterSignerResponse = {
        _: 'RegisterSignerResponse',
        signer: context.signer,
        role: capability.role,
        capability: capability.cid,
      };
      if (events.length === 0) return response;
      let position;
      try {
        ({ position } = await this.log.append(stream, events, eventContextOf(context), { expected: revision }));
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) {
          throw new ApiError(409, `The account ${context.account} kept changing while this signer was registered; retry`);
        }
        continue;
      }
      try {
        await this.projections.waitFor(position, { eventTypes: ['SignerAuthorized'] });
      } catch (error) {
        // The authorization is durable; only its read model lags. Answer success rather than a 500
        // that would invite a retry of something already done.
        if (!(error instanceof ProjectionTimeoutError)) throw error;
        this.logger.warn(error.message);
      }
      return response;
    }
  }

  private async load(stream: string): Promise<{ state: SignersState; revision: bigint | 'no_stream' }> {
    let state: SignersState = new Map();
    let revision: bigint | 'no_stream' = 'no_stream';
    try {
      for await (const event of this.log.readStream(stream)) {
        state = evolveSigners(state, event);
        revision = event.revision;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return { state, revision };
  }
}
