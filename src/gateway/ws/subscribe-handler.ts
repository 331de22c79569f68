/**
 * One inbound frame of a socket, answered: verified exactly as a POST /api/message envelope is, then
 * checked as a Subscribe, authorized for its key, and handed to the feed of that key. Every refusal is
 * an error frame naming what was wrong; the socket stays open and usable.
 */
import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '../../protocol/api-error.js';
import { ActionVerifier } from '../envelope/action-verifier.js';
import { AccountFeed } from './account-feed.js';
import { AgentFeed } from './agent-feed.js';
import type { Subscription, WsConnection } from './connection.js';
import { errorFrame, notFoundMessage } from './frames.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from './limits.js';
import { LiveTap } from './live-tap.js';
import type { RawFrame } from './raw-frames.js';
import { RunFeed } from './run-feed.js';
import { SessionFeed } from './session-feed.js';
import { parseSubscribe, type SubscribeRequest } from './subscribe-request.js';

const TEXT_FRAME =
  'Text frames are not accepted: send a Subscribe action as a binary frame holding its DAG-CBOR SignedActionEnvelope (type "AgentsAction")';

@Injectable()
export class SubscribeHandler {
  private readonly logger = new Logger('agents/ws');

  constructor(
    private readonly verifier: ActionVerifier,
    private readonly tap: LiveTap,
    private readonly accounts: AccountFeed,
    private readonly agents: AgentFeed,
    private readonly sessions: SessionFeed,
    private readonly runs: RunFeed,
  ) {}

  async handle(connection: WsConnection, frame: RawFrame): Promise<void> {
    try {
      if (!frame.binary) throw new ApiError(400, TEXT_FRAME);
      const verified = await this.verifier.verify(frame.bytes);
      const request = parseSubscribe(verified.action);
      const key = `${request.kind}/${request.id}`;
      if (connection.account !== null && connection.account !== verified.account) {
        throw new ApiError(
          403,
          `This socket is subscribed for account ${connection.account}; a Subscribe signed for account ${verified.account} ` +
            'is refused: a socket may not switch accounts, open another socket for another account',
        );
      }
      if (!connection.subscription(key) && connection.subscriptionCount >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
        throw new ApiError(429, `Too many subscriptions: a socket holds at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} keys; open another socket for ${key}`);
      }
      await this.tap.whenReady();
      if (!connection.isOpen) return;
      // Subscribing to a key again starts it over, from the new afterSeq.
      connection.subscription(key)?.close();
      if (!(await this.open(connection, request, verified.account))) throw new ApiError(404, notFoundMessage(key));
      connection.account = verified.account;
    } catch (error) {
      if (error instanceof ApiError) {
        connection.send(errorFrame(error.message));
        return;
      }
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      connection.send(errorFrame('Internal server error'));
    }
  }

  /** The key's subscription, or null when it names nothing this account may see. */
  private async open(connection: WsConnection, request: SubscribeRequest, account: string): Promise<Subscription | null> {
    switch (request.kind) {
      case 'account':
        if (request.id !== account) {
          throw new ApiError(403, `account/${request.id} is not the account this Subscribe is signed for; subscribe to account/${account}`);
        }
        return this.accounts.subscribe(connection, account);
      case 'agents':
        return this.agents.subscribe(connection, request.id, account);
      case 'sessions':
        return this.sessions.subscribe(connection, request.id, account, request.afterSeq);
      case 'runs':
        return this.runs.subscribe(connection, request.id, account);
    }
  }
}
