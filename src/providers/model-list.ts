/**
 * Asks a provider which models it offers, through the `openai` client (any OpenAI-compatible base
 * URL: OpenAI, Ollama, vLLM, a local test server). Every failure of the provider becomes a 502 that
 * names the provider and its host, never a 500: the request was fine, the upstream was not.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ApiError } from '../protocol/api-error.js';
import type { ProviderModel, ProviderType } from '../protocol/providers.js';
import { hostOf, networkReason, providerClient, redactKey } from '../runtime/model/provider-client.js';
import { PROVIDER_SPECS, type ModelListDialect } from './provider-specs.js';

export const MODEL_LIST_TIMEOUT_MS = 15_000;
const MAX_DETAIL_CHARS = 300;

export interface ModelListRequest {
  /** The account's name for the provider, for messages. */
  provider: string;
  type: ProviderType;
  baseUrl: string;
  /** Decrypted for this request only; null for keyless servers (Ollama, custom). */
  apiKey: string | null;
  timeoutMs?: number;
}

export async function listModels(request: ModelListRequest): Promise<ProviderModel[]> {
  const spec = PROVIDER_SPECS[request.type];
  const host = hostOf(request.baseUrl);
  const client = providerClient(request, 'models', request.timeoutMs ?? MODEL_LIST_TIMEOUT_MS);
  const describe = (text: string) => redactKey(text, request.apiKey);
  let body: unknown;
  try {
    const response = await client.models.list().asResponse();
    body = await response.json();
  } catch (error) {
    if (error instanceof APIConnectionTimeoutError) {
      throw new ApiError(
        502,
        `Model provider "${request.provider}" at ${host} did not answer within ${(request.timeoutMs ?? MODEL_LIST_TIMEOUT_MS) / 1000} s`,
        'provider_unreachable',
      );
    }
    if (error instanceof APIConnectionError) {
      throw new ApiError(
        502,
        `Could not reach model provider "${request.provider}" at ${host}: ${describe(networkReason(error))}`,
        'provider_unreachable',
      );
    }
    if (error instanceof APIError && error.status !== undefined) {
      const detail = error.message.replace(/^\d{3} /, '').replace(/^status code \(no body\)$/, '').slice(0, MAX_DETAIL_CHARS);
      throw new ApiError(
        502,
        `${spec.label} request failed: HTTP ${error.status} from ${host}${detail ? ` (${describe(detail)})` : ''}`,
        'provider_error',
      );
    }
    if (error instanceof SyntaxError) throw invalidResponse(spec.label, host, describe(`is not JSON (${error.message})`));
    // Anything else may quote the request (and so the key): answer without the original message.
    throw new ApiError(502, `${spec.label} request to ${host} failed (${(error as Error).name ?? 'error'})`, 'provider_error');
  }
  return parseModels(spec.modelList, body, (reason) => invalidResponse(spec.label, host, reason));
}

function parseModels(dialect: ModelListDialect, body: unknown, invalid: (reason: string) => ApiError): ProviderModel[] {
  const list = (body as Record<string, unknown> | null)?.[dialect === 'google' ? 'models' : 'data'];
  if (!Array.isArray(list)) throw invalid(`has no "${dialect === 'google' ? 'models' : 'data'}" array`);
  const models: ProviderModel[] = [];
  for (const [index, item] of list.entries()) {
    const entry = (item ?? {}) as Record<string, unknown>;
    if (dialect === 'google') {
      if (typeof entry.name !== 'string') throw invalid(`has a models[${index}].name that is not a string`);
      const methods = entry.supportedGenerationMethods;
      if (Array.isArray(methods) && !methods.includes('generateContent')) continue;
      const id = entry.name.replace(/^models\//, '');
      models.push({ id, name: typeof entry.displayName === 'string' ? entry.displayName : id });
      continue;
    }
    if (typeof entry.id !== 'string') throw invalid(`has a data[${index}].id that is not a string`);
    const display = dialect === 'anthropic' ? entry.display_name : undefined;
    models.push({ id: entry.id, name: typeof display === 'string' ? display : entry.id });
  }
  return models;
}

function invalidResponse(label: string, host: string, reason: string): ApiError {
  return new ApiError(502, `${label} response is invalid: the model list from ${host} ${reason}`, 'provider_error');
}
