/** Events of `account-<accountId>` streams. Issue 5 adds providers and secret references here. */
import type { EventDefinition } from './event-definition.js';

export const ACCOUNT_EVENTS: readonly EventDefinition[] = [
  {
    type: 'SignerAuthorized',
    category: 'account',
    version: 1,
    description: 'The account authorized a delegated key to sign actions for it, by a Capability blob it signed.',
    schema: 'SignerAuthorized.v1.json',
  },
];
