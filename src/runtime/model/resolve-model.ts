/**
 * The model an agent's turn talks to: its provider record from the account's stream and its key
 * from the secret store, read at the start of every run, so an edited provider or a rotated key
 * applies from the next turn on. Everything that can be wrong here is the configuration's fault and
 * fails the turn for good: retrying would meet the same record.
 */
import type { EventLog } from '../../events/event-log.js';
import { loadCredentials } from '../../commands/accounts/account-stream.js';
import type { AgentDefinition, ReasoningLevel } from '../../protocol/agents.js';
import { PROVIDER_SPECS, resolveBaseUrl } from '../../providers/provider-specs.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import { hostOf, type ProviderEndpoint } from './provider-client.js';

export interface ResolvedModel {
  /** The account's name for the provider. */
  provider: string;
  /** What kind of provider it is, for messages ("OpenAI", "Custom"). */
  label: string;
  endpoint: ProviderEndpoint;
  host: string;
  model: string;
  reasoningLevel?: ReasoningLevel;
  modelDefaults?: Record<string, unknown>;
}

/** A turn that cannot start because of how the agent or its provider is configured. */
export class ModelSetupError extends Error {
  override name = 'ModelSetupError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function resolveModel(log: EventLog, secrets: SecretStore, account: string, definition: AgentDefinition): Promise<ResolvedModel> {
  const name = definition.modelProvider;
  const { state } = await loadCredentials(log, account);
  const record = state.providers.get(name);
  if (!record) {
    throw new ModelSetupError(
      'provider_missing',
      `Model provider "${name}" (the agent's definition.modelProvider) does not exist for this account; ` +
        'create it with SetModelProvider or point the agent at another provider with UpdateAgent',
    );
  }
  const { config } = record;
  const spec = PROVIDER_SPECS[config.type];
  if (config.authMode === 'subscription') {
    throw new ModelSetupError(
      'provider_unsupported',
      `Model provider "${name}" signs in with a subscription, which this server does not support; give it an API key (secretRefs.apiKey)`,
    );
  }
  const secretName = config.secretRefs?.apiKey;
  if (secretName === undefined && spec.requireApiKey) {
    throw new ModelSetupError('secret_unavailable', `Model provider "${name}" has no API key (secretRefs.apiKey); ${spec.label} requires one`);
  }
  const baseUrl = resolveBaseUrl(config.type, config.baseUrl);
  return {
    provider: name,
    label: spec.label,
    endpoint: { type: config.type, baseUrl, apiKey: secretName === undefined ? null : revealKey(secrets, state.secrets, account, name, secretName) },
    host: hostOf(baseUrl),
    model: definition.model,
    ...(definition.reasoningLevel === undefined ? {} : { reasoningLevel: definition.reasoningLevel }),
    ...(config.modelDefaults === undefined ? {} : { modelDefaults: config.modelDefaults }),
  };
}

/** Decrypted into memory for this run only. */
function revealKey(
  secrets: SecretStore,
  records: ReadonlyMap<string, { fingerprint: string }>,
  account: string,
  provider: string,
  secret: string,
): string {
  const record = records.get(secret);
  const value = record ? secrets.reveal(account, secret, record.fingerprint) : null;
  if (value === null) {
    throw new ModelSetupError(
      'secret_unavailable',
      `Secret "${secret}", the API key of model provider "${provider}", has no value in this server's secret store; store it again with SetSecret`,
    );
  }
  // Keys never contain whitespace, and a pasted one often ends in a newline that would make the header invalid.
  const key = value.toString('utf8').trim();
  // Anything else that is not printable ASCII would make the HTTP header itself invalid, and the
  // header library's error quotes the value: refuse it here, without echoing it.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new ModelSetupError(
      'secret_unusable',
      `Secret "${secret}", the API key of model provider "${provider}", is not a usable API key: it must be ` +
        'printable ASCII without spaces or line breaks; store the key alone with SetSecret',
    );
  }
  return key;
}
