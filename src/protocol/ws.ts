/**
 * The `/agents/ws` wire (spec/upstream/websocket-subscriptions.md): the Subscribe action a client
 * signs, and the JSON `AgentWSEvent` frames the server answers with. Types only, so the browser-safe
 * client can share them.
 */
import type { AgentInfo } from './agents.js';
import type { ActionBase } from './envelope.js';
import type { RunInfo } from './runs.js';
import type { AgentRunUsage, SessionEvent, SessionInfo } from './sessions.js';

export const WS_PATH = '/agents/ws';

/** What the agent is doing right now, as the upstream wire types describe it. */
export interface AgentRunActivity {
  phase: 'starting' | 'thinking' | 'responding' | 'tool' | 'finalizing';
  /** The tool executing, when `phase` is `tool`. */
  toolName?: string;
  toolCallId?: string;
  /** A short human-readable detail, e.g. a summary of the tool's arguments. */
  detail?: string;
  /** The recent output of a long-running tool call. */
  outputTail?: string;
}

/** A session turn's patch: text to append to the visible partial, `done` when the turn's text ended. */
export interface SessionPartialPatch {
  textDelta?: string;
  done?: boolean;
  usage?: AgentRunUsage;
  activity?: AgentRunActivity;
}

/** A run's patch: workflow progress (`ctx.progress`), tool activity, cumulative usage. */
export interface RunPartialPatch {
  progress?: { fraction?: number; label?: string };
  activity?: AgentRunActivity;
  usage?: AgentRunUsage;
}


export type SubscriptionKey = `account/${string}` | `agents/${string}` | `sessions/${string}` | `runs/${string}`;

export interface Subscribe extends ActionBase {
  _: 'Subscribe';
  key: SubscriptionKey;
  /** Sessions: replay durable events with seq > afterSeq; absent replays the whole Log. */
  afterSeq?: number;
}

export interface AccountChange {
  reason: string;
  agentId?: string;
  sessionId?: string;
}

export type AgentWSEvent =
  | { _: 'connected'; connectedAt: number }
  | { _: 'subscribed'; key: string; accountId: string }
  | { _: 'append'; key: `sessions/${string}`; event: SessionEvent }
  | { _: 'appendPartial'; key: `sessions/${string}`; partialId: string; patch: SessionPartialPatch }
  | { _: 'change'; key: `sessions/${string}`; value: SessionInfo }
  | { _: 'change'; key: `agents/${string}`; value: AgentInfo }
  | { _: 'change'; key: `account/${string}`; value: AccountChange }
  | { _: 'change'; key: `runs/${string}`; value: RunInfo }
  | { _: 'append'; key: `runs/${string}`; runId: string; seq: number; entry: Record<string, unknown>; createdAt: number }
  | { _: 'appendPartial'; key: `runs/${string}`; runId: string; partialId: string; patch: RunPartialPatch }
  | { _: 'error'; message: string };

/**
 * Close codes in the private range. Each close reason tells the client what to do; a WebSocket close
 * reason is at most 123 bytes, so the reasons stay short.
 */
export const WS_CLOSE = {
  /** The socket's unsent frames passed the limit: reconnect, then resume with afterSeq. */
  SLOW_CONSUMER: 4000,
  /** The server's live feed of the log failed: reconnect, then resume with afterSeq. */
  FEED_FAILED: 4001,
} as const;
