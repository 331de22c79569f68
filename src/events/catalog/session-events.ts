/**
 * Lifecycle events of `session-<sessionId>` streams. The same streams carry the session's Log
 * (log-events.ts); these record what the Log is not: the session's birth, its title and its deletion.
 */
import type { EventDefinition } from './event-definition.js';

const session = (type: string, description: string): EventDefinition => ({
  type,
  category: 'session',
  version: 1,
  description,
  schema: `${type}.v1.json`,
});

export const SESSION_EVENTS: readonly EventDefinition[] = [
  session('SessionCreated', 'A session was created for an agent, idle, optionally titled, optionally as the child of another session.'),
  session('SessionRenamed', 'The session’s title was set, by a person (kept from then on) or by automatic titling.'),
  session('SessionDeleted', 'The session was deleted; its Log is removed from reads and it answers as not found from then on.'),
];
