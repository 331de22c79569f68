import { describe, expect, it } from 'vitest';
import { evolveCredentials, NO_CREDENTIALS, type CredentialsState } from './credentials.js';
import { decideSetSecret } from './secrets.decider.js';

const fp1 = 'hmac-sha256:one';
const fp2 = 'hmac-sha256:two';

function given(...events: { type: string; data: unknown; at?: number }[]): CredentialsState {
  return events.reduce((s, { at = 7, ...e }) => evolveCredentials(s, { ...e, metadata: { at } }), NO_CREDENTIALS);
}

describe('secrets decider', () => {
  it('records a new secret by name, fingerprint and metadata — never a value', () => {
    expect(decideSetSecret(NO_CREDENTIALS, { newId: 'id-1', name: 'openai', fingerprint: fp1, metadata: { kind: 'api-key' } })).toEqual([
      { type: 'SecretSet', data: { id: 'id-1', name: 'openai', fingerprint: fp1, metadata: { kind: 'api-key' } } },
    ]);
  });

  it('replaces a secret under its existing id, and keeps when it was created', () => {
    const state = given({ type: 'SecretSet', data: { id: 'id-1', name: 'openai', fingerprint: fp1 }, at: 5 });
    const events = decideSetSecret(state, { newId: 'id-2', name: 'openai', fingerprint: fp2 });
    expect(events).toEqual([{ type: 'SecretSet', data: { id: 'id-1', name: 'openai', fingerprint: fp2 } }]);
    const after = events.reduce((s, e) => evolveCredentials(s, { ...e, metadata: { at: 9 } }), state);
    expect(after.secrets.get('openai')).toEqual({ id: 'id-1', fingerprint: fp2, createdAt: 5, updatedAt: 9 });
  });

  it('replaces the metadata with the same value, and drops it when none is given', () => {
    const state = given({ type: 'SecretSet', data: { id: 'id-1', name: 'k', fingerprint: fp1, metadata: { a: 1 } } });
    expect(decideSetSecret(state, { newId: 'x', name: 'k', fingerprint: fp1, metadata: { a: 2 } })).toHaveLength(1);
    expect(decideSetSecret(state, { newId: 'x', name: 'k', fingerprint: fp1 })).toEqual([
      { type: 'SecretSet', data: { id: 'id-1', name: 'k', fingerprint: fp1 } },
    ]);
  });

  it('is a no-op for the same value and metadata again', () => {
    const state = given({ type: 'SecretSet', data: { id: 'id-1', name: 'k', fingerprint: fp1, metadata: { a: [1, { b: 2 }] } } });
    expect(decideSetSecret(state, { newId: 'x', name: 'k', fingerprint: fp1, metadata: { a: [1, { b: 2 }] } })).toEqual([]);
  });

  it('sets a secret again after it was deleted, as a new one', () => {
    const state = given(
      { type: 'SecretSet', data: { id: 'id-1', name: 'k', fingerprint: fp1 } },
      { type: 'SecretDeleted', data: { name: 'k' } },
    );
    expect(decideSetSecret(state, { newId: 'id-2', name: 'k', fingerprint: fp1 })).toEqual([
      { type: 'SecretSet', data: { id: 'id-2', name: 'k', fingerprint: fp1 } },
    ]);
  });
});
