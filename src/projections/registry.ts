import type { Projection } from './projection.js';
import { accountChangesProjection } from './account-changes.projection.js';
import { accountProvidersProjection } from './account-providers.projection.js';
import { accountSecretsProjection } from './account-secrets.projection.js';
import { accountSignersProjection } from './account-signers.projection.js';
import { agentsProjection } from './agents.projection.js';
import { runsProjection } from './runs.projection.js';
import { sessionViewProjection } from './session-view.projection.js';

/** Every projection the server runs; each later area adds its read models here. */
export const PROJECTIONS: readonly Projection[] = [
  sessionViewProjection,
  accountSignersProjection,
  accountSecretsProjection,
  accountProvidersProjection,
  agentsProjection,
  accountChangesProjection,
  runsProjection,
];
