/**
 * An account's secrets (names, fingerprints, metadata — never values) and model providers, folded
 * from its `account-<id>` stream: the state the secret and provider deciders decide against.
 */
import type { JsonObject } from '../../events/store/types.js';
import type { ModelProviderConfig, RedactedModelProvider } from '../../protocol/providers.js';
import type { RedactedSecret } from '../../protocol/secrets.js';

export interface SecretRecord {
  id: string;
  fingerprint: string;
  metadata?: JsonObject;
  createdAt: number;
  updatedAt: number;
}

export interface ProviderRecord {
  id: string;
  config: ModelProviderConfig;
  createdAt: number;
  updatedAt: number;
}

export interface CredentialsState {
  secrets: ReadonlyMap<string, SecretRecord>;
  providers: ReadonlyMap<string, ProviderRecord>;
}

export const NO_CREDENTIALS: CredentialsState = { secrets: new Map(), providers: new Map() };

export function evolveCredentials(
  state: CredentialsState,
  event: { type: string; data: unknown; metadata: { at: number } },
): CredentialsState {
  const at = event.metadata.at;
  switch (event.type) {
    case 'SecretSet': {
      const data = event.data as { id: string; name: string; fingerprint: string; metadata?: JsonObject };
      const secrets = new Map(state.secrets);
      secrets.set(data.name, {
        id: data.id,
        fingerprint: data.fingerprint,
        ...(data.metadata === undefined ? {} : { metadata: data.metadata }),
        createdAt: state.secrets.get(data.name)?.createdAt ?? at,
        updatedAt: at,
      });
      return { ...state, secrets };
    }
    case 'SecretDeleted': {
      const secrets = new Map(state.secrets);
      secrets.delete((event.data as { name: string }).name);
      return { ...state, secrets };
    }
    case 'ModelProviderSet': {
      const data = event.data as { id: string; name: string; config: ModelProviderConfig };
      const providers = new Map(state.providers);
      providers.set(data.name, {
        id: data.id,
        config: data.config,
        createdAt: state.providers.get(data.name)?.createdAt ?? at,
        updatedAt: at,
      });
      return { ...state, providers };
    }
    case 'ModelProviderDeleted': {
      const providers = new Map(state.providers);
      providers.delete((event.data as { name: string }).name);
      return { ...state, providers };
    }
    default:
      return state;
  }
}

/** name → fingerprint of every secret the log says exists: the rows the secret store keeps. */
export function liveSecrets(state: CredentialsState): Map<string, string> {
  return new Map([...state.secrets].map(([name, secret]) => [name, secret.fingerprint]));
}

export function redactSecret(name: string, secret: SecretRecord): RedactedSecret {
  return {
    id: secret.id,
    name,
    ...(secret.metadata === undefined ? {} : { metadata: secret.metadata }),
    hasValue: true,
    createdAt: secret.createdAt,
    updatedAt: secret.updatedAt,
  };
}

/** Config and secret references stay on the server; the type, base URL and whether it has secrets do not. */
export function redactProvider(
  name: string,
  provider: { id: string; config: ModelProviderConfig; createdAt: number; updatedAt: number },
): RedactedModelProvider {
  const { config } = provider;
  return {
    id: provider.id,
    name,
    type: config.type,
    hasSecrets: Object.keys(config.secretRefs ?? {}).length > 0,
    authMode: config.authMode ?? 'api-key',
    ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  };
}
