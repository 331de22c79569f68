import { AccountFeed } from './account-feed.js';
import { AgentFeed } from './agent-feed.js';
import { AgentsWsGateway } from './agents-ws.gateway.js';
import { WsConnections } from './connections.js';
import { LiveTap } from './live-tap.js';
import { ReadModelQueue } from './read-model-queue.js';
import { RunFeed } from './run-feed.js';
import { SessionFeed } from './session-feed.js';
import { SubscribeHandler } from './subscribe-handler.js';

/** Everything behind /agents/ws, for the gateway module to provide. */
export const WS_PROVIDERS = [AgentsWsGateway, SubscribeHandler, LiveTap, WsConnections, ReadModelQueue, SessionFeed, AgentFeed, AccountFeed, RunFeed];
