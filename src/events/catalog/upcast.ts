import type { RecordedEvent } from '../store/types.js';
import type { EventCatalog } from './catalog.js';
import type { EventMetadata } from './metadata.js';

/** A recorded event in its current shape, whatever version it was written at. */
export type CatalogEvent<D = unknown> = Omit<RecordedEvent, 'data' | 'metadata'> & { data: D; metadata: EventMetadata };

/**
 * Brings an event written at an older version to the current one, one step at a time. Events with no
 * `v` were written before versions existed: version 1. Types the catalog does not know pass through.
 */
export function upcast(catalog: EventCatalog, event: RecordedEvent): CatalogEvent {
  const definition = catalog.get(event.type);
  const written = typeof event.metadata.v === 'number' ? event.metadata.v : 1;
  if (!definition || written >= definition.version) return event as unknown as CatalogEvent;
  let shape = { type: event.type, data: event.data, metadata: event.metadata, revision: event.revision, created: event.created };
  for (let v = written; v < definition.version; v++) shape = definition.upcasters![v]!(shape);
  return { ...event, data: shape.data, metadata: shape.metadata as unknown as EventMetadata };
}
