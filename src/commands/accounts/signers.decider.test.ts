import { describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/api-error.js';
import { decideRegisterSigner, evolveSigners, type SignersState } from './signers.decider.js';

const account = 'z6MkAccount';
const delegate = 'z6MkDelegate';
const capability = { issuer: account, delegate, role: 'AGENT' as const, cid: 'bafyCap', ts: 5, label: 'laptop' };
const empty: SignersState = new Map();

function given(...events: { type: string; data: unknown }[]): SignersState {
  return events.reduce<SignersState>((s, e) => evolveSigners(s, { ...e, metadata: { at: 7 } }), empty);
}

describe('signers decider', () => {
  it('authorizes a delegate by a capability the account issued to it', () => {
    expect(decideRegisterSigner(empty, { account, signer: delegate, capability })).toEqual([
      { type: 'SignerAuthorized', data: { signer: delegate, role: 'AGENT', capability: 'bafyCap', capabilityTs: 5, label: 'laptop' } },
    ]);
  });

  it('is a no-op for the same capability again', () => {
    const state = given({ type: 'SignerAuthorized', data: { signer: delegate, role: 'AGENT', capability: 'bafyCap' } });
    expect(decideRegisterSigner(state, { account, signer: delegate, capability })).toEqual([]);
    expect(state.get(delegate)).toEqual({ role: 'AGENT', capability: 'bafyCap', authorizedAt: 7 });
  });

  it.each([
    ['issued by someone else', { ...capability, issuer: 'z6MkOther' }, delegate, 403, /issued by z6MkOther; only the account z6MkAccount/],
    ['delegating to another key', { ...capability, delegate: 'z6MkOther' }, delegate, 403, /delegates to z6MkOther, but the action was signed by z6MkDelegate/],
    ['for the account itself', capability, account, 400, /always may sign for itself/],
    ['scoped to a path', { ...capability, path: '/docs/one' }, delegate, 403, /scoped to the path "\/docs\/one"; signing for the account needs a grant for the whole account/],
    ['addressed to an audience', { ...capability, audience: 'z6MkServer' }, delegate, 403, /addressed to the audience z6MkServer/],
  ])('refuses a capability %s', (_, cap, signer, status, message) => {
    let error: unknown;
    try {
      decideRegisterSigner(empty, { account, signer, capability: cap });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).message).toMatch(message);
  });
});
