/**
 * The one live subscription to `$all` in the process, and the partial bus's one listener: each event
 * is dispatched by its stream to the feed that serves that kind of key, which finds its subscribers
 * by id. A thousand sockets cost one log subscription, and each event is serialized once per key.
 */
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog, LogSubscription } from '../../events/event-log.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import { PartialBus, type PartialMessage } from '../../events/partial-bus.js';
import { AccountFeed } from './account-feed.js';
import { AgentFeed } from './agent-feed.js';
import { WsConnections } from './connections.js';
import { RunFeed } from './run-feed.js';
import { SessionFeed } from './session-feed.js';
import { WS_CLOSE } from '../../protocol/ws.js';

@Injectable()
export class LiveTap implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('agents/ws');
  private subscription: LogSubscription | null = null;
  private ready: Promise<void> = Promise.resolve();
  private markReady: () => void = () => {};
  private stopping = false;
  private unlisten: () => void = () => {};

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly bus: PartialBus,
    private readonly connections: WsConnections,
    private readonly sessions: SessionFeed,
    private readonly agents: AgentFeed,
    private readonly accounts: AccountFeed,
    private readonly runs: RunFeed,
  ) {}

  onApplicationBootstrap(): void {
    this.start();
    this.unlisten = this.bus.listen((partial) => this.forwardPartial(partial));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.unlisten();
    await this.subscription?.close();
  }

  /**
   * Resolves once the tap is at the head of the log. A session replay relies on it: every event
   * committed after a subscription registers must reach it through the tap.
   */
  whenReady(): Promise<void> {
    return this.ready;
  }

  private start(): void {
    // Whoever waited on a tap that failed before reaching the head waits on this one instead.
    const previous = this.markReady;
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
    void this.ready.then(previous);
    const subscription = this.log.subscribeAll({ from: 'end' });
    this.subscription = subscription;
    void this.consume(subscription);
  }

  private async consume(subscription: LogSubscription): Promise<void> {
    try {
      for await (const message of subscription) {
        if (message.kind === 'caughtUp') this.markReady();
        else this.dispatch(message.event);
      }
      if (this.stopping) return;
      throw new Error('the log subscription ended');
    } catch (error) {
      if (this.stopping) return;
      // Every subscriber may have missed events from here on: tell them to resume, and start over.
      this.logger.error(`The live feed of the log failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      this.connections.endAll(WS_CLOSE.FEED_FAILED, 'Live feed failed; reconnect and resubscribe with afterSeq');
      this.start();
    }
  }

  private dispatch(event: CatalogEvent): void {
    try {
      const { stream } = event;
      if (stream.startsWith('session-')) this.sessions.onEvent(event);
      else if (stream.startsWith('agent-')) this.agents.onEvent(event);
      else if (stream.startsWith('run-')) {
        this.runs.onEvent(event);
        this.sessions.onRunEvent(event);
      }
      this.accounts.onEvent(event);
    } catch (error) {
      this.logger.error(`Live frames for ${event.type} ${event.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }

  private forwardPartial(partial: PartialMessage): void {
    const key = partial.kind === 'session' ? `sessions/${partial.sessionId}` : `runs/${partial.rootRunId}`;
    const sent = partial.kind === 'session' ? this.sessions.onPartial(partial) : this.runs.onPartial(partial);
    if (sent === 0) this.logger.debug(`skip partial; no subscription key=${key} partialId=${partial.partialId}`);
    else this.logger.debug(`send partial key=${key} partialId=${partial.partialId} subscriptions=${sent}`);
  }
}
