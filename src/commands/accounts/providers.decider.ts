/**
 * Model providers: upsert by (account, name), referring only to secrets the account has; deleting
 * one also deletes the secrets it referenced that no remaining provider references. Pure:
 * decide(state, command) → events.
 */
import { isDeepStrictEqual } from 'node:util';
import type { NewEvent } from '../../events/event-log.js';
import type { JsonValue } from '../../events/store/types.js';
import { ApiError } from '../../protocol/api-error.js';
import type { ModelProviderConfig } from '../../protocol/providers.js';
import type { CredentialsState } from './credentials.js';

export interface SetModelProviderCommand {
  /** Used when the provider is new; a replaced provider keeps its id. */
  newId: string;
  name: string;
  config: ModelProviderConfig;
}

export interface DeleteModelProviderCommand {
  name: string;
}

export function decideSetModelProvider(state: CredentialsState, command: SetModelProviderCommand): NewEvent[] {
  for (const [role, secret] of Object.entries(command.config.secretRefs ?? {})) {
    if (!state.secrets.has(secret)) {
      throw new ApiError(
        400,
        `Secret "${secret}" (provider.secretRefs.${role}) does not exist for this account; store it first with SetSecret ` +
          `(${namesOf('secrets', state.secrets)})`,
      );
    }
  }
  const existing = state.providers.get(command.name);
  if (existing && isDeepStrictEqual(existing.config, command.config)) return [];
  return [
    {
      type: 'ModelProviderSet',
      data: { id: existing?.id ?? command.newId, name: command.name, config: command.config as unknown as JsonValue },
    },
  ];
}

export function decideDeleteModelProvider(state: CredentialsState, command: DeleteModelProviderCommand): NewEvent[] {
  const provider = state.providers.get(command.name);
  if (!provider) {
    throw new ApiError(404, `Model provider "${command.name}" not found for this account (${namesOf('providers', state.providers)})`);
  }
  const stillReferenced = new Set<string>();
  for (const [name, other] of state.providers) {
    if (name !== command.name) for (const secret of Object.values(other.config.secretRefs ?? {})) stillReferenced.add(secret);
  }
  const orphaned = [...new Set(Object.values(provider.config.secretRefs ?? {}))]
    .filter((secret) => !stillReferenced.has(secret) && state.secrets.has(secret))
    .sort();
  return [
    { type: 'ModelProviderDeleted', data: { name: command.name } },
    ...orphaned.map((name) => ({ type: 'SecretDeleted', data: { name } })),
  ];
}

function namesOf(kind: string, map: ReadonlyMap<string, unknown>): string {
  return map.size ? `its ${kind}: ${[...map.keys()].sort().join(', ')}` : `it has no ${kind}`;
}
