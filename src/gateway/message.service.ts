/**
 * POST /api/message: verify the signed envelope, dispatch its action to its handler (through the
 * client request id's idempotency stream when it carries one), and encode the answer as DAG-CBOR.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { encode } from '@ipld/dag-cbor';
import { ActionRegistry, type ActionContext } from '../commands/action-registry.js';
import { eventContextOf } from '../commands/action-context.js';
import { Idempotency, idempotencyStream, requestHash, type RecordedOutcome } from '../commands/idempotency/idempotency.js';
import { EVENT_LOG } from '../events/events.module.js';
import type { EventLog } from '../events/event-log.js';
import type { ErrorResponse } from '../protocol/envelope.js';
import { ApiError } from '../protocol/api-error.js';
import { ActionVerifier } from './envelope/action-verifier.js';
import { downgradeResponse } from './protocol-compat.js';
import { WS_PATH } from '../protocol/ws.js';

const INTERNAL_ERROR = 'Internal server error';

@Injectable()
export class MessageService {
  private readonly logger = new Logger('MessageService');
  private readonly idempotency: Idempotency;

  constructor(
    private readonly registry: ActionRegistry,
    private readonly verifier: ActionVerifier,
    @Inject(EVENT_LOG) log: EventLog,
  ) {
    this.idempotency = new Idempotency(log);
  }

  /** Never throws: every failure becomes an error response with its status. */
  async handle(body: Uint8Array): Promise<RecordedOutcome> {
    try {
      const verified = await this.verifier.verify(body);
      if (verified.action._ === 'Subscribe') {
        throw new ApiError(
          400,
          `Subscribe is accepted only over WebSocket at ${WS_PATH}: open a WebSocket there and send this signed envelope as a binary frame`,
        );
      }
      const handler = this.registry.get(verified.action);
      const clientRequestId = handler.idempotent ? requestIdOf(verified.action) : undefined;
      const key = clientRequestId === undefined ? undefined : { account: verified.account, action: verified.action._, clientRequestId };
      const context: ActionContext = {
        account: verified.account,
        signer: verified.signer,
        protocol: verified.protocol,
        actionCid: verified.actionCid,
        ...(key ? { requestKey: idempotencyStream(key) } : {}),
      };
      const execute = () => this.execute(async () => downgradeResponse(await handler.handle(verified.action, context), context.protocol));
      if (key === undefined) return await execute();
      return await this.idempotency.run(
        key,
        requestHash(verified.action, verified.protocol),
        eventContextOf(context),
        execute,
      );
    } catch (error) {
      return this.failure(error);
    }
  }

  /** Expected refusals become recorded outcomes (a retry with the same id gets the same refusal). */
  private async execute(run: () => Promise<unknown>): Promise<RecordedOutcome> {
    try {
      return { status: 200, body: encode(await run()) };
    } catch (error) {
      if (error instanceof ApiError) return errorOutcome(error.status, error.message, error.code);
      throw error;
    }
  }

  private failure(error: unknown): RecordedOutcome {
    if (error instanceof ApiError) return errorOutcome(error.status, error.message, error.code);
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return errorOutcome(500, INTERNAL_ERROR);
  }
}

export function errorOutcome(status: number, message: string, code?: string): RecordedOutcome {
  const response: ErrorResponse = code === undefined ? { _: 'Error', message } : { _: 'Error', message, code };
  return { status, body: encode(response) };
}

/** `clientRequestId` (create actions) or `clientMessageId` (MessageSession). */
function requestIdOf(action: Record<string, unknown>): string | undefined {
  const id = action.clientRequestId ?? action.clientMessageId;
  if (id === undefined) return undefined;
  if (typeof id !== 'string') {
    throw new ApiError(400, `${action.clientRequestId === undefined ? 'clientMessageId' : 'clientRequestId'} must be a string`);
  }
  return id;
}
