import type { CatalogEvent } from '../events/catalog/upcast.js';
import { serializePosition } from '../events/store/position.js';

/**
 * One event as a line. `json` is the NDJSON record `export` writes and analytics consumers read:
 * `{position, stream, revision, id, type, data, metadata, created}`, with revision as a number.
 */
export function eventLine(event: CatalogEvent, format: 'json' | 'text'): string {
  if (format === 'json') {
    return JSON.stringify({
      position: serializePosition(event.position),
      stream: event.stream,
      revision: Number(event.revision),
      id: event.id,
      type: event.type,
      data: event.data,
      metadata: event.metadata,
      created: event.created,
    });
  }
  const when = new Date(event.created).toISOString();
  return `${serializePosition(event.position).padStart(8)}  ${when}  ${event.stream}@${event.revision}  ${event.type}  ${event.metadata.actor ?? '-'}  ${JSON.stringify(event.data)}`;
}
