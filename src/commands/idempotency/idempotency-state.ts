/** The state of one idempotency stream, folded from its events. Pure. */
import type { CatalogEvent } from '../../events/catalog/upcast.js';

export type IdempotencyState =
  | { kind: 'free'; expected: 'no_stream' | bigint }
  | { kind: 'claimed'; requestHash: string; at: number; revision: bigint }
  | { kind: 'completed'; requestHash: string; status: number; response: string };

export function foldIdempotency(events: readonly CatalogEvent[]): IdempotencyState {
  let state: IdempotencyState = { kind: 'free', expected: 'no_stream' };
  let requestHash = '';
  for (const event of events) {
    switch (event.type) {
      case 'IdempotencyKeyClaimed':
        requestHash = (event.data as { requestHash: string }).requestHash;
        // The store's commit time, not the claimer's clock: every instance judges the lease alike.
        state = { kind: 'claimed', requestHash, at: event.created, revision: event.revision };
        break;
      case 'IdempotentResponseRecorded': {
        const data = event.data as { status: number; response: string };
        state = { kind: 'completed', requestHash, status: data.status, response: data.response };
        break;
      }
      case 'IdempotencyKeyReleased':
        state = { kind: 'free', expected: event.revision };
        break;
      default:
        throw new Error(`Unexpected ${event.type} event on idempotency stream ${event.stream}`);
    }
  }
  return state;
}
