/** What every key's subscription shares: its socket, its account, and how it ends. */
import { Logger } from '@nestjs/common';
import type { Subscription, WsConnection } from './connection.js';
import { encodeFrame, errorFrame, type Frame } from './frames.js';
import type { SubscriptionKey } from '../../protocol/ws.js';

const logger = new Logger('agents/ws');

export abstract class FeedSubscription<K extends SubscriptionKey = SubscriptionKey> implements Subscription {
  closed = false;

  constructor(
    readonly key: K,
    readonly account: string,
    readonly connection: WsConnection,
  ) {}

  /** Removes the subscription from the feed's indexes. */
  protected abstract detach(): void;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    this.connection.release(this);
  }

  /** The `subscribed` frame: the first one of a key, before any snapshot or replay. */
  announce(): void {
    this.connection.send(encodeFrame({ _: 'subscribed', key: this.key, accountId: this.account }));
    logger.debug(`subscribed conn=${this.connection.id} key=${this.key} account=${this.account}`);
  }

  /** Sends `frames` straight to the socket (ahead of anything held for a replay), then an error saying why nothing more follows. */
  endWith(message: string, ...frames: Frame[]): void {
    if (this.closed) return;
    for (const frame of frames) this.connection.send(frame);
    this.connection.send(errorFrame(message));
    this.close();
  }
}

/** A subscription that lasts only while its account keeps a role on the agent. */
export interface AgentBound {
  readonly key: SubscriptionKey;
  readonly account: string;
  readonly agentId: string;
  endWith(message: string): void;
}
