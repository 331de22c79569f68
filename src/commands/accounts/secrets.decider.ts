/**
 * Setting a secret: upsert by name. The value never reaches the decider — only its fingerprint, which
 * is all the log records. Pure: decide(state, command) → events.
 */
import { isDeepStrictEqual } from 'node:util';
import type { NewEvent } from '../../events/event-log.js';
import type { JsonObject } from '../../events/store/types.js';
import type { CredentialsState } from './credentials.js';

export interface SetSecretCommand {
  /** Used when the secret is new; a replaced secret keeps its id. */
  newId: string;
  name: string;
  fingerprint: string;
  metadata?: JsonObject;
}

export function decideSetSecret(state: CredentialsState, command: SetSecretCommand): NewEvent[] {
  const existing = state.secrets.get(command.name);
  if (existing && existing.fingerprint === command.fingerprint && isDeepStrictEqual(existing.metadata, command.metadata)) {
    return [];
  }
  return [
    {
      type: 'SecretSet',
      data: {
        id: existing?.id ?? command.newId,
        name: command.name,
        fingerprint: command.fingerprint,
        ...(command.metadata === undefined ? {} : { metadata: command.metadata }),
      },
    },
  ];
}
