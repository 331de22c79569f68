/**
 * The `openai` client for one of an account's model providers: any OpenAI-compatible base URL
 * (OpenAI, Ollama, vLLM, a local test server) and the OpenAI-compatible endpoints Anthropic and
 * Google offer beside their own APIs. This is the one place that decides what a request to a
 * provider carries, so a key only ever goes to the host its owner configured.
 */
import OpenAI, { APIConnectionError, type ClientOptions } from 'openai';
import type { ProviderType } from '../../protocol/providers.js';
import { PROVIDER_SPECS } from '../../providers/provider-specs.js';

export interface ProviderEndpoint {
  type: ProviderType;
  baseUrl: string;
  /** Decrypted for this use only; null for keyless servers (Ollama, custom). */
  apiKey: string | null;
}

/** Which of the provider's APIs the client talks to: its model list, or chat completions. */
export type ProviderApi = 'models' | 'chat';

export function providerClient(endpoint: ProviderEndpoint, api: ProviderApi, timeoutMs: number): OpenAI {
  return new OpenAI({
    // Everything explicit: the client would otherwise read OPENAI_API_KEY, OPENAI_BASE_URL,
    // OPENAI_ORG_ID and OPENAI_PROJECT_ID from the server's environment and send the operator's
    // credentials to whatever host a user configured.
    apiKey: endpoint.apiKey ?? 'no-key',
    baseURL: apiBaseUrl(endpoint, api),
    organization: null,
    project: null,
    webhookSecret: null,
    // Retrying is the run dispatcher's decision, made once for the whole turn.
    maxRetries: 0,
    timeout: timeoutMs,
    // Its debug logging prints requests: never let OPENAI_LOG write a key (google's is in the query).
    logLevel: 'off',
    // A provider that redirects elsewhere is refused, not followed: the key (x-api-key survives a
    // cross-host hop) and the answer must stay with the host the user configured.
    fetchOptions: { redirect: 'error' },
    ...authOptions(endpoint, api),
  });
}

/** host[:port] of the base URL: what messages name, never the path (which may carry a token). */
export function hostOf(baseUrl: string): string {
  return new URL(baseUrl).host;
}

/** The text with the key blanked out, for anything a provider echoes back. */
export function redactKey(text: string, apiKey: string | null): string {
  return apiKey ? text.replaceAll(apiKey, '[api key]') : text;
}

function apiBaseUrl({ type, baseUrl }: ProviderEndpoint, api: ProviderApi): string {
  const dialect = PROVIDER_SPECS[type].modelList;
  if (dialect === 'anthropic') return `${baseUrl}/v1`;
  // Google's chat completions live under /openai; its own model list does not.
  if (dialect === 'google' && api === 'chat') return `${baseUrl}/openai`;
  return baseUrl;
}

function authOptions({ type, apiKey }: ProviderEndpoint, api: ProviderApi): Pick<ClientOptions, 'defaultHeaders' | 'defaultQuery'> {
  // A null header removes the client's `Authorization: Bearer`. Both compatible chat endpoints take
  // the bearer key; only the native model lists want theirs elsewhere.
  const dialect = PROVIDER_SPECS[type].modelList;
  if (api === 'models' && dialect === 'anthropic') {
    return {
      defaultHeaders: { Authorization: null, 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      defaultQuery: { limit: '1000' },
    };
  }
  if (api === 'models' && dialect === 'google') {
    return { defaultHeaders: { Authorization: null }, defaultQuery: { pageSize: '1000', ...(apiKey ? { key: apiKey } : {}) } };
  }
  return apiKey ? {} : { defaultHeaders: { Authorization: null } };
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** fetch's "fetch failed" hides the reason in its cause chain; name it. */
export function networkReason(error: APIConnectionError): string {
  let deepest: unknown = error;
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code) return `${NETWORK_CODES[code] ?? cause.message} (${code})`;
    deepest = cause;
  }
  return (deepest as Error).message;
}
