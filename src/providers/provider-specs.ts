/**
 * What each provider type is (spec/upstream/model-providers.md, "Supported provider types"). Pinned
 * types always use their own base URL, so a stored API key can only ever go to its provider;
 * `ollama` and `custom` exist to point at a server of the user's choosing.
 */
import type { ProviderType } from '../protocol/providers.js';

export type ModelListDialect = 'openai' | 'anthropic' | 'google';

export interface ProviderSpec {
  label: string;
  /** Null: the user must give one (`custom`). */
  defaultBaseUrl: string | null;
  customBaseUrl: boolean;
  requireApiKey: boolean;
  modelList: ModelListDialect;
}

export const PROVIDER_SPECS: Readonly<Record<ProviderType, ProviderSpec>> = {
  openai: pinned('OpenAI', 'https://api.openai.com/v1'),
  anthropic: pinned('Anthropic', 'https://api.anthropic.com', 'anthropic'),
  google: pinned('Google', 'https://generativelanguage.googleapis.com/v1beta', 'google'),
  openrouter: pinned('OpenRouter', 'https://openrouter.ai/api/v1'),
  deepseek: pinned('DeepSeek', 'https://api.deepseek.com'),
  groq: pinned('Groq', 'https://api.groq.com/openai/v1'),
  xai: pinned('xAI', 'https://api.x.ai/v1'),
  ollama: { label: 'Ollama', defaultBaseUrl: 'http://localhost:11434/v1', customBaseUrl: true, requireApiKey: false, modelList: 'openai' },
  custom: { label: 'Custom', defaultBaseUrl: null, customBaseUrl: true, requireApiKey: false, modelList: 'openai' },
};

function pinned(label: string, defaultBaseUrl: string, modelList: ModelListDialect = 'openai'): ProviderSpec {
  return { label, defaultBaseUrl, customBaseUrl: false, requireApiKey: true, modelList };
}

/** The base URL requests go to: the configured one where the type allows it, else the type's own. */
export function resolveBaseUrl(type: ProviderType, configured: string | undefined): string {
  const spec = PROVIDER_SPECS[type];
  const url = spec.customBaseUrl ? (configured ?? spec.defaultBaseUrl) : spec.defaultBaseUrl;
  // SetModelProvider refuses a custom provider without a base URL, so this is a record that bypassed it.
  if (url === null) throw new Error(`A ${type} provider has no base URL`);
  return url;
}
