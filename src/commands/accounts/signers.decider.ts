/**
 * Which keys may sign for an account: the account itself always; a delegated key once the account
 * has authorized it with a signed Capability blob. Pure: decide(state, command) → events.
 */
import { ApiError } from '../../protocol/api-error.js';
import type { NewEvent } from '../../events/event-log.js';

export interface AuthorizedSigner {
  role: 'AGENT' | 'WRITER';
  capability: string;
  label?: string;
  authorizedAt: number;
}

export type SignersState = ReadonlyMap<string, AuthorizedSigner>;

export interface VerifiedCapabilityFacts {
  issuer: string;
  delegate: string;
  role: 'AGENT' | 'WRITER';
  cid: string;
  ts: number;
  label?: string;
  path?: string;
}

export interface RegisterSignerCommand {
  account: string;
  signer: string;
  capability: VerifiedCapabilityFacts;
}

export function evolveSigners(state: SignersState, event: { type: string; data: unknown; metadata: { at: number } }): SignersState {
  if (event.type !== 'SignerAuthorized') return state;
  const data = event.data as { signer: string; role: 'AGENT' | 'WRITER'; capability: string; label?: string };
  const next = new Map(state);
  next.set(data.signer, {
    role: data.role,
    capability: data.capability,
    ...(data.label === undefined ? {} : { label: data.label }),
    authorizedAt: event.metadata.at,
  });
  return next;
}

export function decideRegisterSigner(state: SignersState, command: RegisterSignerCommand): NewEvent[] {
  const { account, signer, capability } = command;
  if (signer === account) {
    throw new ApiError(400, 'The account always may sign for itself; RegisterSigner is for delegated keys');
  }
  if (capability.issuer !== account) {
    throw new ApiError(
      403,
      `Capability was issued by ${capability.issuer}; only the account ${account} can authorize signers for itself`,
    );
  }
  if (capability.delegate !== signer) {
    throw new ApiError(
      403,
      `Capability delegates to ${capability.delegate}, but the action was signed by ${signer}: the delegate must sign RegisterSigner`,
    );
  }
  if (state.get(signer)?.capability === capability.cid) return [];
  return [
    {
      type: 'SignerAuthorized',
      data: {
        signer,
        role: capability.role,
        capability: capability.cid,
        capabilityTs: capability.ts,
        ...(capability.label === undefined ? {} : { label: capability.label }),
        ...(capability.path === undefined ? {} : { path: capability.path }),
      },
    },
  ];
}
