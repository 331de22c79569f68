/**
 * Client request ids on the log. The first request with an id claims its `idem-…` stream (an append
 * with `no_stream`, so of two racing duplicates exactly one runs), runs, and records its response;
 * later requests with the same id and payload get that response again — across restarts and server
 * instances — and the same id with a different payload is a 409.
 */
import { createHash } from 'node:crypto';
import { encode } from '@ipld/dag-cbor';
import type { EventContext } from '../../events/catalog/metadata.js';
import type { EventLog } from '../../events/event-log.js';
import { StreamNotFoundError, WrongExpectedVersionError } from '../../events/store/errors.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import { ApiError } from '../../protocol/api-error.js';
import { foldIdempotency, type IdempotencyState } from './idempotency-state.js';

export interface IdempotencyKey {
  account: string;
  action: string;
  clientRequestId: string;
}

export interface RecordedOutcome {
  status: number;
  body: Uint8Array;
}

export const MAX_CLIENT_REQUEST_ID_LENGTH = 256;
/** A claim older than this, with no response, is taken to be from a process that died. */
const CLAIM_LEASE_MS = 120_000;
/** How long a duplicate waits for the first request to finish before giving up with a 409. */
const WAIT_FOR_FIRST_MS = 30_000;

export function idempotencyStream(key: IdempotencyKey): string {
  const digest = createHash('sha256').update(key.clientRequestId).digest('hex').slice(0, 32);
  return `idem-${key.account}-${key.action}-${digest}`;
}

/**
 * sha-256 of the action's DAG-CBOR encoding without `ts`, and of the protocol it is answered in:
 * what "the same payload" means (a response recorded in one protocol's shape is no answer to a
 * client speaking another).
 */
export function requestHash(action: Record<string, unknown>, protocol: number): string {
  const { ts: _ts, ...payload } = action;
  return createHash('sha256').update(encode({ payload, protocol })).digest('hex');
}

export class Idempotency {
  constructor(
    private readonly log: EventLog,
    private readonly now: () => number = Date.now,
  ) {}

  async run(
    key: IdempotencyKey,
    hash: string,
    context: EventContext,
    execute: () => Promise<RecordedOutcome>,
  ): Promise<RecordedOutcome> {
    if (key.clientRequestId.length === 0 || key.clientRequestId.length > MAX_CLIENT_REQUEST_ID_LENGTH) {
      throw new ApiError(400, `Client request ID must be 1 to ${MAX_CLIENT_REQUEST_ID_LENGTH} characters`);
    }
    const stream = idempotencyStream(key);
    const deadline = this.now() + WAIT_FOR_FIRST_MS;
    for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
      const state = await this.state(stream);
      if (state.kind === 'completed') return this.replay(state, hash);
      if (state.kind === 'claimed' && state.requestHash !== hash) throw payloadMismatch();
      const expected =
        state.kind === 'free' ? state.expected : this.now() - state.at > CLAIM_LEASE_MS ? state.revision : null;
      if (expected !== null) {
        const claimed = await this.claim(stream, key, hash, context, expected);
        if (claimed !== null) return this.execute(stream, claimed, context, execute);
        continue;
      }
      if (this.now() > deadline) {
        throw new ApiError(409, 'A request with this client request ID is still being processed; retry it later');
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private replay(state: Extract<IdempotencyState, { kind: 'completed' }>, hash: string): RecordedOutcome {
    if (state.requestHash !== hash) throw payloadMismatch();
    return { status: state.status, body: Buffer.from(state.response, 'base64') };
  }

  /** Returns the claim's revision, or null when another request claimed first. */
  private async claim(
    stream: string,
    key: IdempotencyKey,
    hash: string,
    context: EventContext,
    expected: 'no_stream' | bigint,
  ): Promise<bigint | null> {
    try {
      const result = await this.log.append(
        stream,
        [{ type: 'IdempotencyKeyClaimed', data: { action: key.action, clientRequestId: key.clientRequestId, requestHash: hash } }],
        context,
        { expected },
      );
      return result.nextExpectedRevision;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return null;
      throw error;
    }
  }

  private async execute(
    stream: string,
    claim: bigint,
    context: EventContext,
    execute: () => Promise<RecordedOutcome>,
  ): Promise<RecordedOutcome> {
    let outcome: RecordedOutcome;
    try {
      outcome = await execute();
    } catch (error) {
      // Unexpected failures record no response: release the id so a retry runs the action again.
      // A failing release must not hide the failure that caused it.
      try {
        await this.log.append(
          stream,
          [{ type: 'IdempotencyKeyReleased', data: { reason: error instanceof Error ? error.message : String(error) } }],
          context,
          { expected: claim },
        );
      } catch (releaseError) {
        throw new AggregateError([error, releaseError], `${describe(error)}; and releasing the client request ID failed: ${describe(releaseError)}`);
      }
      throw error;
    }
    try {
      await this.log.append(
        stream,
        [{ type: 'IdempotentResponseRecorded', data: { status: outcome.status, response: Buffer.from(outcome.body).toString('base64') } }],
        context,
        { expected: claim },
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      // This claim outlived its lease and a duplicate took over: answer what the log recorded, so
      // every request with this id gets the same answer.
      const state = await this.state(stream);
      if (state.kind === 'completed') return { status: state.status, body: Buffer.from(state.response, 'base64') };
      throw new ApiError(409, 'A request with this client request ID is still being processed; retry it later');
    }
    return outcome;
  }

  private async state(stream: string): Promise<IdempotencyState> {
    const events: CatalogEvent[] = [];
    try {
      for await (const event of this.log.readStream(stream)) events.push(event);
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return foldIdempotency(events);
  }
}

function payloadMismatch(): ApiError {
  return new ApiError(409, 'Client request ID payload mismatch');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
