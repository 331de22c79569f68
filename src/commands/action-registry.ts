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
}

export interface ActionHandler<A extends ActionBase = ActionBase, R = unknown> {
  readonly action: A['_'];
  handle(action: A, context: ActionContext): Promise<R>;
}

@Injectable()
export class ActionRegistry {
  private readonly handlers = new Map<string, ActionHandler>();

  register(handler: ActionHandler): void {
    if (this.handlers.has(handler.action)) throw new Error(`Action ${handler.action} has two handlers`);
    this.handlers.set(handler.action, handler);
  }

  get(name: string): ActionHandler {
    const handler = this.handlers.get(name);
    if (!handler) {
      throw new ApiError(400, `Unknown action "${name}"; this server accepts: ${[...this.handlers.keys()].sort().join(', ')}`);
    }
    return handler;
  }

  names(): string[] {
    return [...this.handlers.keys()].sort();
  }
}
