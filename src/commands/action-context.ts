import type { EventContext } from '../events/catalog/metadata.js';
import type { ActionContext } from './action-registry.js';

/** The metadata of events a signed action causes: its account, its signer, its CID as cause. */
export function eventContextOf(context: ActionContext): EventContext {
  return {
    actor: 'user',
    accountId: context.account,
    signerId: context.signer,
    causationId: context.actionCid,
    correlationId: context.actionCid,
  };
}
