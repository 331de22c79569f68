import { createHash } from 'node:crypto';
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

/**
 * The id of the `index`-th event an action appends to `stream`: derived from its client request id
 * when it has one (else from the envelope), so an action run again for the same request — after a
 * lease expired or a crash between effect and record — appends the same ids, which the store
 * acknowledges without writing twice. The stream is part of it, so the events one action appends to
 * several streams have ids of their own.
 */
export function eventIdFor(context: ActionContext, stream: string, index: number): string {
  return uuidFrom(`${context.requestKey ?? context.actionCid}:${stream}:${index}`);
}

/** A UUID that is a function of `seed`, shaped as a version 4 UUID, which the store requires of event ids. */
export function uuidFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
