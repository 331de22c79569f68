/** Events of `account-<accountId>` streams: signers, secrets (never their values) and model providers. */
import type { EventDefinition } from './event-definition.js';

const account = (type: string, description: string): EventDefinition => ({
  type,
  category: 'account',
  version: 1,
  description,
  schema: `${type}.v1.json`,
});

export const ACCOUNT_EVENTS: readonly EventDefinition[] = [
  account('SignerAuthorized', 'The account authorized a delegated key to sign actions for it, by a Capability blob it signed.'),
  account('SecretSet', 'The account stored or replaced a secret: its name, metadata and value fingerprint; the value lives only in the secret store.'),
  account('SecretDeleted', 'A secret of the account was deleted and its value erased from the secret store.'),
  account('ModelProviderSet', 'The account created or replaced a model provider (upsert by name).'),
  account('ModelProviderDeleted', 'The account deleted a model provider.'),
];
