/**
 * The session Log: the durable, actor-stamped events of `session-<id>` streams
 * (spec/tools-and-verbs.md, "Event shapes").
 *
 * Version 1 is the shape written before `actor` existed; version 2 stamps `actor` and the Log `seq`
 * in the metadata.
 */
import type { JsonObject } from '../store/types.js';
import type { EventDefinition, EventShape, Upcaster } from './event-definition.js';
import type { Actor } from './metadata.js';

export const LOG_EVENT_TYPES = ['message', 'tool_call', 'tool_result', 'error'] as const;
export type LogEventType = (typeof LOG_EVENT_TYPES)[number];

/** The actor an event recorded before the field existed must have had, from its shape. */
export function deriveActor(event: Pick<EventShape, 'type' | 'data'>): Actor {
  const data = event.data as { role?: unknown } | null;
  if (event.type === 'message' && data?.role === 'user') return 'user';
  if (event.type === 'error') return 'system';
  return 'agent';
}

/**
 * v1 → v2: derive `actor` from the type, `seq` from the revision — v1 session streams held only
 * Log events, so revision + 1 is the Log position they were shown at — `at` from the commit time,
 * and, where no cause was recorded, the event as its own cause and correlation. An account that was
 * never recorded cannot be derived: readers treat a missing `accountId` as unknown.
 */
const stampActorAndSeq: Upcaster = (event) => {
  const metadata: JsonObject = { ...event.metadata, v: 2 };
  if (metadata.actor === undefined) metadata.actor = deriveActor(event);
  if (metadata.seq === undefined) metadata.seq = Number(event.revision) + 1;
  if (metadata.at === undefined) metadata.at = event.created;
  if (metadata.causationId === undefined) metadata.causationId = event.id;
  if (metadata.correlationId === undefined) metadata.correlationId = event.id;
  return { ...event, metadata };
};

const logEvent = (type: LogEventType, description: string): EventDefinition => ({
  type,
  category: 'session',
  version: 2,
  description,
  schema: `${type}.v2.json`,
  requiredMetadata: ['seq'],
  upcasters: { 1: stampActorAndSeq },
});

export const LOG_EVENTS: readonly EventDefinition[] = [
  logEvent('message', 'A message in the session Log: the user’s words, an assistant reply, or a tool message.'),
  logEvent('tool_call', 'A verb or tool invoked in the Log by the agent, or by the user from the palette.'),
  logEvent('tool_result', 'The output of a tool_call, or the error it failed with.'),
  logEvent('error', 'A failure reported in the Log by the runtime; shown to people, never replayed to the model.'),
];
