import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { RegisterSigner, RegisterSignerResponse } from '../../protocol/signers.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { awaitProjections, loadStream, MAX_ATTEMPTS } from '../stream-decisions.js';
import { accountStream, appendDecision, keptChanging } from './account-stream.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { CAPABILITY_VERIFIER, type CapabilityVerifier } from './capability-verifier.js';
import { capabilityBytes } from './signer-authorization.js';
import { decideRegisterSigner, evolveSigners, type SignersState } from './signers.decider.js';

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
    const response: RegisterSignerResponse = {
      _: 'RegisterSignerResponse',
      signer: context.signer,
      role: capability.role,
      capability: capability.cid,
    };
    // Decide against the stream as read; if another command appended meanwhile, decide again.
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { state, revision } = await loadStream<SignersState>(this.log, accountStream(context.account), new Map(), evolveSigners);
      const events = decideRegisterSigner(state, { account: context.account, signer: context.signer, capability });
      if (events.length === 0) return response;
      const position = await appendDecision(this.log, context, revision, events, Date.now());
      if (position === null) continue;
      await awaitProjections(this.projections, position, ['SignerAuthorized'], this.logger);
      return response;
    }
    throw keptChanging(context.account, 'this signer was registered');
  }
}
