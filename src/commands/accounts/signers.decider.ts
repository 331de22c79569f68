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
  audience?: string;
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

/**
 * Does this capability let `signer` sign anything for `account`? Only an account-wide grant does: a
 * capability narrowed to a path or to an audience grants less than every action of the account, so
 * it is refused rather than silently widened. Throws the refusal; the gateway calls this before it
 * records anything for the request.
 */
export function checkSigningGrant(command: RegisterSignerCommand): void {
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
  if (capability.audience !== undefined) {
    throw new ApiError(
      403,
      `Capability is addressed to the audience ${capability.audience}; an account-wide signing grant has no audience`,
    );
  }
  if (capability.path !== undefined && capability.path !== '' && capability.path !== '/') {
    throw new ApiError(
      403,
      `Capability is scoped to the path ${JSON.stringify(capability.path)}; signing for the account needs a grant ` +
        'for the whole account (no path, or "/")',
    );
  }
}

export function decideRegisterSigner(state: SignersState, command: RegisterSignerCommand): NewEvent[] {
  checkSigningGrant(command);
  const { signer, capability } = command;
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
