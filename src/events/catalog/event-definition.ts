import type { JsonObject, JsonValue } from '../store/types.js';

/** An event as the catalog sees it: data and metadata, before or after upcasting. */
export interface EventShape {
  id: string;
  type: string;
  data: JsonValue;
  metadata: JsonObject;
  /** Revision within its stream (some upcasters need it for values older events never recorded). */
  revision: bigint;
  /** When the store committed it, ms since the epoch. */
  created: number;
}

/** Turns an event written at `from` into the shape of version `from + 1`. Pure. */
export type Upcaster = (event: EventShape) => EventShape;

export interface EventDefinition {
  type: string;
  /** Stream category: the events live on `<category>-<id>` streams. */
  category: string;
  /** Current schema version; appends write it, reads upcast older ones to it. */
  version: number;
  /** One line for the generated catalog documentation. */
  description: string;
  /** JSON Schema file of the current data shape, under schemas/events/. */
  schema: string;
  /** Extra required metadata keys beyond metadata.v1.json's. */
  requiredMetadata?: readonly string[];
  /** `upcasters[n]` turns version n into n + 1; one for every version below `version`. */
  upcasters?: Readonly<Record<number, Upcaster>>;
}
