/**
 * Events of `idem-…` streams: one stream per (account, action, client request id). The claim is
 * appended with `no_stream`, so of two racing duplicates exactly one runs; the response it records is
 * replayed to the other and to every later retry, across restarts and server instances.
 */
import type { EventDefinition } from './event-definition.js';

const idem = (type: string, description: string): EventDefinition => ({
  type,
  category: 'idem',
  version: 1,
  description,
  schema: `${type}.v1.json`,
});

export const IDEMPOTENCY_EVENTS: readonly EventDefinition[] = [
  idem('IdempotencyKeyClaimed', 'A request with a client request id started; exactly one claim wins.'),
  idem('IdempotentResponseRecorded', 'The first request’s response, replayed to later requests with the same id and payload.'),
  idem('IdempotencyKeyReleased', 'The claimed request failed unexpectedly and recorded no response; a retry may run it.'),
];
