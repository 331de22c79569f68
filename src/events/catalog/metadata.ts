/** What every event's metadata carries (schemas/events/metadata.v1.json). */
export type Actor = 'user' | 'agent' | 'system' | 'trigger';

export interface EventMetadata {
  /** Schema version of the event type, as written. */
  v: number;
  actor: Actor;
  accountId: string;
  signerId?: string;
  causationId: string;
  correlationId: string;
  /** ms since the epoch. */
  at: number;
  /** Log events: 1-based, contiguous per session. */
  seq?: number;
  /** Log events: CID of the previous Log event. */
  prev?: string;
}

/** The caller's part of the metadata; `v` and `at` are stamped on append. */
export type EventContext = Omit<EventMetadata, 'v' | 'at'> & { at?: number };
