/**
 * Signed actions become commands: each action name maps to one handler, which decides events and
 * appends them (or, for reads, answers from projections). Modules register their handlers at start.
 */
import { Injectable } from '@nestjs/common';
import type { ActionBase } from '../protocol/envelope.js';
import { ApiError } from '../protocol/api-error.js';

export interface ActionContext {
  /** base58btc principals. */
  account: string;
  signer: string;
  /** The protocol version to answer in: min(client, server). */
  protocol: number;
  /** CID of the signed envelope: the causation id of the events this action appends. */
  actionCid: string;
  /** The idempotency stream of the action's client request id, when it runs under one. */
  requestKey?: string;
}

export interface ActionHandler<A extends ActionBase = ActionBase, R = unknown> {
  readonly action: A['_'];
  /** The action's fields besides `_` and `ts`; any other is refused before the handler runs. */
  readonly fields: readonly string[];
  /**
   * Runs through its `clientRequestId`/`clientMessageId` idempotency stream. Only actions with an
   * effect declare it: a read needs no claim recorded under the account's name.
   */
  readonly idempotent?: boolean;
  handle(action: A, context: ActionContext): Promise<R>;
}

@Injectable()
export class ActionRegistry {
  private readonly handlers = new Map<string, ActionHandler>();

  register(handler: ActionHandler): void {
    if (this.handlers.has(handler.action)) throw new Error(`Action ${handler.action} has two handlers`);
    this.handlers.set(handler.action, handler);
  }

  /** The handler for an action, once its fields are known to be the ones the action accepts. */
  get(action: ActionBase & Record<string, unknown>): ActionHandler {
    const handler = this.handlers.get(action._);
    if (!handler) {
      throw new ApiError(400, `Unknown action "${action._}"; this server accepts: ${this.names().join(', ')}`);
    }
    for (const key of Object.keys(action)) {
      if (key !== '_' && key !== 'ts' && !handler.fields.includes(key)) {
        const accepted = handler.fields.length ? handler.fields.join(', ') : 'none besides _ and ts';
        throw new ApiError(400, `Unknown field "${key}" in ${action._}; accepted fields: ${accepted}`);
      }
    }
    return handler;
  }

  names(): string[] {
    return [...this.handlers.keys()].sort();
  }
}
