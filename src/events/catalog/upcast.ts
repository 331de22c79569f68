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
  const written = event.metadata.v === undefined ? 1 : event.metadata.v;
  if (!definition) return event as unknown as CatalogEvent;
  if (typeof written !== 'number' || !Number.isInteger(written) || written < 1 || written > definition.version) {
    throw new UpcastError(
      `${event.type} event ${event.id} (${event.stream}@${event.revision}) has schema version ` +
        `${JSON.stringify(written)}; this server reads versions 1 to ${definition.version}` +
        (typeof written === 'number' && written > definition.version ? ' (it was written by a newer server)' : ''),
    );
  }
  if (written === definition.version) return event as unknown as CatalogEvent;
  let shape = { id: event.id, type: event.type, data: event.data, metadata: event.metadata, revision: event.revision, created: event.created };
  for (let v = written; v < definition.version; v++) shape = definition.upcasters![v]!(shape);
  return { ...event, data: shape.data, metadata: shape.metadata as unknown as EventMetadata };
}

export class UpcastError extends Error {
  override name = 'UpcastError';
}
