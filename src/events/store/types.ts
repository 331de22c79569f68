/**
 * The event store port: EventStoreDB (KurrentDB) semantics, one interface, several adapters.
 * Every adapter must pass test/store/store.contract.ts.
 */
import type { Position } from './position.js';

/** Any JSON value: what event data and metadata may hold (checked on append). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * `any`: no check. `no_stream`: the stream must not exist (or be soft-deleted).
 * `exists`: the stream must exist. A bigint: the stream's last revision must equal it.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'exists' | bigint;

export interface EventData {
  /** A UUID; a retried append with the same ids is acknowledged again without writing twice. */
  id?: string;
  type: string;
  data: JsonValue;
  metadata?: JsonObject;
}

export interface RecordedEvent<D = JsonValue, M = JsonObject> {
  id: string;
  stream: string;
  type: string;
  /** 0-based revision within the stream. */
  revision: bigint;
  /** Global position in `$all`. */
  position: Position;
  data: D;
  metadata: M;
  /** Commit time, ms since the epoch. */
  created: number;
}

export interface AppendOptions {
  expected?: ExpectedRevision;
}

export interface AppendResult {
  /** The stream's last revision after the append: pass it as `expected` for the next one. */
  nextExpectedRevision: bigint;
  /** Position of the append's last event in `$all`. */
  position: Position;
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  /** Inclusive start revision. Defaults to `start` forwards and `end` backwards. */
  from?: bigint | 'start' | 'end';
  direction?: Direction;
  maxCount?: number;
}

export interface AllFilter {
  /** Keep events whose stream name starts with one of these. */
  streamPrefixes?: readonly string[];
  /** Keep events whose type is one of these. */
  eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Inclusive start position. Defaults to `start` forwards and `end` backwards. */
  from?: Position | 'start' | 'end';
  direction?: Direction;
  maxCount?: number;
  filter?: AllFilter;
}

export interface SubscribeAllOptions {
  /** Exclusive: the first event delivered is the one after `from`. A stored checkpoint resumes here. */
  from?: Position | 'start' | 'end';
  filter?: AllFilter;
}

export interface SubscribeStreamOptions {
  /** Exclusive: the first event delivered has revision `from + 1`. */
  from?: bigint | 'start' | 'end';
}

/** What a subscription yields: events in order, and a marker each time it reaches the head. */
export type SubscriptionMessage =
  | { kind: 'event'; event: RecordedEvent }
  | { kind: 'caughtUp'; position: Position | null };

export interface Subscription extends AsyncIterable<SubscriptionMessage> {
  /** Ends the iteration; pending and later events are not delivered. */
  close(): Promise<void>;
}

export interface StreamMetadata {
  /** Only the newest `maxCount` events stay readable. */
  maxCount?: number;
  /** Events older than `maxAge` seconds are no longer readable. */
  maxAge?: number;
  /** Events with a revision below this are no longer readable. */
  truncateBefore?: bigint;
  /** Free-form keys, kept as given. */
  custom?: JsonObject;
}

export interface DeleteOptions {
  expected?: ExpectedRevision;
}

export interface EventStore {
  append(stream: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  subscribeAll(options?: SubscribeAllOptions): Subscription;
  subscribeStream(stream: string, options?: SubscribeStreamOptions): Subscription;
  getStreamMetadata(stream: string): Promise<StreamMetadata>;
  setStreamMetadata(stream: string, metadata: StreamMetadata, options?: AppendOptions): Promise<AppendResult>;
  /** Soft delete: reads say not found; a later append reopens the stream, revisions continuing. */
  deleteStream(stream: string, options?: DeleteOptions): Promise<{ position: Position | null }>;
  /** Tombstone: the stream name can never be read or written again. */
  tombstoneStream(stream: string, options?: DeleteOptions): Promise<{ position: Position | null }>;
  /** The position of the newest event in `$all`, or null when the log is empty. */
  headPosition(): Promise<Position | null>;
  close(): Promise<void>;
}
