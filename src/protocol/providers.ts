/**
 * Account model providers (spec/http-api.md, "SetModelProvider" to "ListProviderModels";
 * spec/upstream/model-providers.md): records naming an LLM backend and the secrets that
 * authenticate to it, never the secret values.
 */
import type { ActionBase } from './envelope.js';

export const PROVIDER_TYPES = ['openai', 'anthropic', 'google', 'openrouter', 'deepseek', 'groq', 'xai', 'ollama', 'custom'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export type ProviderAuthMode = 'api-key' | 'subscription';

export interface ModelProviderConfig {
  type: ProviderType;
  /** Merged into every model request; at most 16 KiB as JSON. */
  modelDefaults?: Record<string, unknown>;
  /** Role → the name of one of the account's secrets; `apiKey` is the one role this server reads. */
  secretRefs?: Record<string, string>;
  /** Only `ollama` and `custom` talk to a base URL of their own choosing (`custom` must give one). */
  baseUrl?: string;
  authMode?: ProviderAuthMode;
}

export interface RedactedModelProvider {
  id: string;
  name: string;
  type: ProviderType;
  hasSecrets: boolean;
  authMode?: ProviderAuthMode;
  baseUrl?: string;
  createdAt: number;
  updatedAt: number;
}

export interface SetModelProvider extends ActionBase {
  _: 'SetModelProvider';
  name: string;
  provider: ModelProviderConfig;
}

export interface SetModelProviderResponse {
  _: 'SetModelProviderResponse';
  provider: RedactedModelProvider;
}

export interface DeleteModelProvider extends ActionBase {
  _: 'DeleteModelProvider';
  name: string;
}

export interface DeleteModelProviderResponse {
  _: 'DeleteModelProviderResponse';
  name: string;
}

export interface ListModelProviders extends ActionBase {
  _: 'ListModelProviders';
}

export interface ListModelProvidersResponse {
  _: 'ListModelProvidersResponse';
  providers: RedactedModelProvider[];
}

export interface ListProviderModels extends ActionBase {
  _: 'ListProviderModels';
  provider: string;
}

export interface ProviderModel {
  id: string;
  name: string;
}

export interface ListProviderModelsResponse {
  _: 'ListProviderModelsResponse';
  models: ProviderModel[];
}
