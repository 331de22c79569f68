import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { ResolvedModel } from '../model/resolve-model.js';
import { modelFailure } from './model-errors.js';
import { ModelStalledError } from './model-stream.js';

const model: ResolvedModel = {
  provider: 'work',
  label: 'Custom',
  endpoint: { type: 'custom', baseUrl: 'http://llm.internal:8080/v1', apiKey: 'sk-secret' },
  host: 'llm.internal:8080',
  model: 'm1',
};
const http = (status: number, message: string) => APIError.generate(status, { error: { message } }, undefined, new Headers());
const who = 'Model provider "work" at llm.internal:8080';

describe('modelFailure', () => {
  it.each([
    [401, 'provider_auth', false, `${who} refused the request: HTTP 401 (bad key [api key]); check the provider's API key (SetSecret stores a new one)`],
    [403, 'provider_auth', false, `${who} refused the request: HTTP 403 (bad key [api key]); check the provider's API key (SetSecret stores a new one)`],
    [404, 'provider_error', false, `${who} answered HTTP 404 (bad key [api key]) for model "m1"; ListProviderModels lists the models it offers`],
    [400, 'provider_rejected', false, `${who} rejected the request: HTTP 400 (bad key [api key])`],
    [429, 'provider_rate_limited', true, `${who} is limiting requests: HTTP 429 (bad key [api key])`],
    [408, 'provider_error', true, `${who} failed: HTTP 408 (bad key [api key])`],
    [503, 'provider_error', true, `${who} failed: HTTP 503 (bad key [api key])`],
  ])('given HTTP %i, then %s, retryable %s, the key blanked out', (status, code, retryable, message) => {
    expect(modelFailure(http(status, 'bad key sk-secret'), model)).toEqual({ error: { code, message }, retryable });
  });

  it('given a refused connection, then provider_unreachable names the host and the reason', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(modelFailure(new APIConnectionError({ cause: new TypeError('fetch failed', { cause }) }), model)).toEqual({
      error: { code: 'provider_unreachable', message: 'Could not reach model provider "work" at llm.internal:8080: connection refused (ECONNREFUSED)' },
      retryable: true,
    });
  });

  it('given a timeout or a stalled stream, then provider_unreachable, retryable', () => {
    expect(modelFailure(new APIConnectionTimeoutError(), model)).toEqual({ error: { code: 'provider_unreachable', message: `${who} did not answer in time` }, retryable: true });
    expect(modelFailure(new ModelStalledError(120_000), model)).toEqual({
      error: { code: 'provider_unreachable', message: `${who} did not answer: no data for 120 s` },
      retryable: true,
    });
  });

  it('given an error event inside a stream, then provider_error, retryable', () => {
    expect(modelFailure(new APIError(undefined, { message: 'overloaded' }, 'overloaded', undefined), model)).toMatchObject({
      error: { code: 'provider_error', message: `${who} failed while answering (overloaded)` },
      retryable: true,
    });
  });

  it('given anything else, then only its kind is named, never its message', () => {
    expect(modelFailure(new SyntaxError('Unexpected token in sk-secret'), model)).toEqual({
      error: { code: 'provider_error', message: `${who} sent an answer this server could not read (SyntaxError)` },
      retryable: false,
    });
  });
});
