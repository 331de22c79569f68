import { describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/api-error.js';
import type { ModelProviderConfig } from '../../protocol/providers.js';
import { evolveCredentials, NO_CREDENTIALS, type CredentialsState } from './credentials.js';
import { decideDeleteModelProvider, decideSetModelProvider } from './providers.decider.js';

const openai: ModelProviderConfig = { type: 'openai', secretRefs: { apiKey: 'openai-key' } };
const secret = (name: string) => ({ type: 'SecretSet', data: { id: `id-${name}`, name, fingerprint: `hmac-sha256:${name}` } });
const provider = (name: string, config: ModelProviderConfig) => ({ type: 'ModelProviderSet', data: { id: `id-${name}`, name, config } });

function given(...events: { type: string; data: unknown }[]): CredentialsState {
  return events.reduce((s, e) => evolveCredentials(s, { ...e, metadata: { at: 7 } }), NO_CREDENTIALS);
}

function refusal(decide: () => unknown): ApiError {
  try {
    decide();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('model providers decider', () => {
  describe('SetModelProvider', () => {
    it('creates a provider that refers to a secret the account has', () => {
      expect(decideSetModelProvider(given(secret('openai-key')), { newId: 'p1', name: 'main', config: openai })).toEqual([
        { type: 'ModelProviderSet', data: { id: 'p1', name: 'main', config: openai } },
      ]);
    });

    it('refuses a reference to a missing secret, naming it and the secrets there are', () => {
      const error = refusal(() => decideSetModelProvider(given(secret('other')), { newId: 'p1', name: 'main', config: openai }));
      expect(error.status).toBe(400);
      expect(error.message).toBe(
        'Secret "openai-key" (provider.secretRefs.apiKey) does not exist for this account; store it first with SetSecret (its secrets: other)',
      );
      expect(refusal(() => decideSetModelProvider(NO_CREDENTIALS, { newId: 'p1', name: 'main', config: openai })).message).toMatch(
        /it has no secrets\)$/,
      );
    });

    it('upserts by name, keeping the id; the same config again is a no-op', () => {
      const state = given(secret('openai-key'), secret('k2'), provider('main', openai));
      const changed: ModelProviderConfig = { ...openai, secretRefs: { apiKey: 'k2' } };
      expect(decideSetModelProvider(state, { newId: 'p2', name: 'main', config: changed })).toEqual([
        { type: 'ModelProviderSet', data: { id: 'id-main', name: 'main', config: changed } },
      ]);
      expect(decideSetModelProvider(state, { newId: 'p2', name: 'main', config: { ...openai } })).toEqual([]);
    });
  });

  describe('DeleteModelProvider', () => {
    it('deletes the provider and the secrets no remaining provider references; a shared secret survives', () => {
      const state = given(
        secret('shared'),
        secret('own'),
        secret('unrelated'),
        provider('a', { type: 'custom', baseUrl: 'http://127.0.0.1:1/v1', secretRefs: { apiKey: 'shared' } }),
        provider('b', { type: 'openai', secretRefs: { apiKey: 'shared' } }),
        provider('c', { type: 'openai', secretRefs: { apiKey: 'own' } }),
      );
      expect(decideDeleteModelProvider(state, { name: 'a' })).toEqual([{ type: 'ModelProviderDeleted', data: { name: 'a' } }]);
      expect(decideDeleteModelProvider(state, { name: 'c' })).toEqual([
        { type: 'ModelProviderDeleted', data: { name: 'c' } },
        { type: 'SecretDeleted', data: { name: 'own' } },
      ]);
      const afterA = [...decideDeleteModelProvider(state, { name: 'a' })].reduce(
        (s, e) => evolveCredentials(s, { ...e, metadata: { at: 8 } }),
        state,
      );
      expect(decideDeleteModelProvider(afterA, { name: 'b' })).toEqual([
        { type: 'ModelProviderDeleted', data: { name: 'b' } },
        { type: 'SecretDeleted', data: { name: 'shared' } },
      ]);
    });

    it('deletes a keyless provider alone', () => {
      const state = given(provider('local', { type: 'ollama' }));
      expect(decideDeleteModelProvider(state, { name: 'local' })).toEqual([{ type: 'ModelProviderDeleted', data: { name: 'local' } }]);
    });

    it('refuses an unknown provider with 404, naming the ones there are', () => {
      const error = refusal(() => decideDeleteModelProvider(given(provider('main', { type: 'ollama' })), { name: 'nope' }));
      expect(error.status).toBe(404);
      expect(error.message).toBe('Model provider "nope" not found for this account (its providers: main)');
      expect(refusal(() => decideDeleteModelProvider(NO_CREDENTIALS, { name: 'nope' })).message).toMatch(/it has no providers\)$/);
    });
  });
});
