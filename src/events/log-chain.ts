/**
 * A session's Log is a hash chain: each Log event records in `metadata.prev` the CID of the Log event
 * before it, so an auditor holding the last CID can tell whether any earlier event was altered,
 * removed or reordered.
 *
 * The CID covers the event exactly as stored — id, type, data and metadata as written, before any
 * upcasting — so a later schema version that reads old events differently cannot break the chain.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { dagCborCid } from '../signing/cbor-values.js';
import type { JsonObject, JsonValue } from './store/types.js';

export interface ChainedEvent {
  id: string;
  type: string;
  data: JsonValue;
  metadata: JsonObject;
}

export function logEventCid(event: ChainedEvent): string {
  return dagCborCid(dagCbor.encode({ id: event.id, type: event.type, data: event.data, metadata: event.metadata }));
}
