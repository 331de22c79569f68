import { position } from '../position.js';
import type { RecordedEvent } from '../types.js';
import type { EventRow } from './schema.js';

export function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    stream: row.stream,
    type: row.type,
    revision: BigInt(row.revision),
    position: position(BigInt(row.position)),
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    created: row.created,
  };
}
