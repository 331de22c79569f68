/**
 * A failed model call as one clear run failure: a stable code, a message that names the provider and
 * its host (never a stack trace, never the key), and whether trying the turn again could help —
 * yes for rate limits, server errors and the network; no for a refused key, an unknown model or a
 * malformed request, which would fail the same way again.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { networkReason, redactKey } from '../model/provider-client.js';
import type { ResolvedModel } from '../model/resolve-model.js';
import type { RunFailure } from '../run-executor.js';
import { ModelStalledError } from './model-stream.js';

const MAX_DETAIL_CHARS = 300;

export interface ModelFailure {
  error: RunFailure;
  retryable: boolean;
}

export function modelFailure(error: unknown, model: ResolvedModel): ModelFailure {
  const who = `Model provider "${model.provider}" at ${model.host}`;
  const redact = (text: string) => redactKey(text, model.endpoint.apiKey);
  if (error instanceof ModelStalledError) {
    return fail('provider_unreachable', `${who} did not answer: ${error.message}`, true);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return fail('provider_unreachable', `${who} did not answer in time`, true);
  }
  if (error instanceof APIConnectionError) {
    return fail('provider_unreachable', `Could not reach model provider "${model.provider}" at ${model.host}: ${redact(networkReason(error))}`, true);
  }
  if (error instanceof APIError) {
    const detail = redact(error.message.replace(/^\d{3} /, '').replace(/^status code \(no body\)$/, '').slice(0, MAX_DETAIL_CHARS));
    const quoted = detail ? ` (${detail})` : '';
    const status = error.status;
    // An error event inside an accepted stream: the provider failed while answering.
    if (status === undefined) return fail('provider_error', `${who} failed while answering${quoted}`, true);
    if (status === 401 || status === 403) {
      return fail('provider_auth', `${who} refused the request: HTTP ${status}${quoted}; check the provider's API key (SetSecret stores a new one)`, false);
    }
    if (status === 404) {
      return fail('provider_error', `${who} answered HTTP 404${quoted} for model "${model.model}"; ListProviderModels lists the models it offers`, false);
    }
    if (status === 429) return fail('provider_rate_limited', `${who} is limiting requests: HTTP 429${quoted}`, true);
    if (status === 408 || status === 409 || status >= 500) return fail('provider_error', `${who} failed: HTTP ${status}${quoted}`, true);
    return fail('provider_rejected', `${who} rejected the request: HTTP ${status}${quoted}`, false);
  }
  // Anything else (a body that is not JSON, a broken stream) may quote the request: name its kind only.
  return fail('provider_error', `${who} sent an answer this server could not read (${(error as Error)?.name ?? 'error'})`, false);
}

function fail(code: string, message: string, retryable: boolean): ModelFailure {
  return { error: { code, message }, retryable };
}
