import { Inject, Injectable } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../events/store/errors.js';
import { ApiError } from '../../protocol/api-error.js';
import type { RegisterSigner, RegisterSignerResponse } from '../../protocol/signers.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { eventContextOf } from '../action-context.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { CAPABILITY_VERIFIER, type CapabilityVerifier } from './capability-verifier.js';
import { decideRegisterSigner, evolveSigners, type SignersState } from './signers.decider.js';

const MAX_ATTEMPTS = 3;

@Injectable()
export class RegisterSignerHandler implements ActionHandler<RegisterSigner, RegisterSignerResponse> {
  readonly action = 'RegisterSigner' as const;

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(CAPABILITY_VERIFIER) private readonly verifyCapability: CapabilityVerifier,
    private readonly projections: ProjectionService,
  ) {}

  async handle(action: RegisterSigner, context: ActionContext): Promise<RegisterSignerResponse> {
    if (!(action.capability instanceof Uint8Array)) {
      throw new ApiError(400, 'RegisterSigner.capability must be the Capability blob’s DAG-CBOR bytes');
    }
    const capability = this.verifyCapability(action.capability);
    const stream = `account-${context.account}`;
    // Decide against the stream as read; if another command appended meanwhile, decide again.
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(stream);
      const events = decideRegisterSigner(state, { account: context.account, signer: context.signer, capability });
      try {
        if (events.length) {
          const { position } = await this.log.append(stream, events, eventContextOf(context), { expected: revision });
          await this.projections.waitFor(position, { eventTypes: ['SignerAuthorized'] });
        }
        return { _: 'RegisterSignerResponse', signer: context.signer, role: capability.role, capability: capability.cid };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
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
