/**
 * Live subscriptions (spec/upstream/websocket-subscriptions.md): open `/agents/ws`, sign a Subscribe
 * for one key — with `afterSeq` left out when absent, as the Seed apps do — and read the server's
 * AgentWSEvent frames as an async iterable. Browser-safe: it uses the platform's WebSocket, or the
 * constructor given (Node 20 has none built in; pass the `ws` package's).
 *
 * One key per socket, as the apps open them. To resume after a disconnect, subscribe again with the
 * last seq received as `afterSeq`: the server replays from there, and nothing is lost or repeated.
 */
import type { AgentWSEvent, Subscribe, SubscriptionKey } from '../protocol/ws.js';
import type { Principal } from '../protocol/envelope.js';
import { signAction, type ActionSigner } from './sign-action.js';

/** The parts of a browser WebSocket this client uses; the `ws` package's WebSocket has them too. */
export interface WebSocketLike {
  binaryType: string;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SubscribeOptions {
  /** Session keys: replay durable events with seq > afterSeq (absent: the whole Log). */
  afterSeq?: number;
  /** The account subscribing: the signer itself unless it signs for an account that authorized it. */
  account?: Principal;
  protocol?: number;
  /** Defaults to the global WebSocket. */
  WebSocket?: WebSocketConstructor;
}

export interface AgentsSubscription extends AsyncIterable<AgentWSEvent> {
  /** The socket's close code and reason; the iteration ends once it closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** `/agents/ws` on the server at `server` (http(s) or ws(s), with or without the path). */
export function agentsWsUrl(server: string): string {
  const url = new URL(server);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  if (!url.pathname.endsWith('/agents/ws')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/agents/ws`;
  return url.toString();
}

export function subscribe(server: string, signer: ActionSigner, key: SubscriptionKey, options: SubscribeOptions = {}): AgentsSubscription {
  const WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!WebSocketImpl) {
    throw new TypeError("No WebSocket in this runtime: pass options.WebSocket (in Node 20, the ws package's WebSocket)");
  }
  const socket = new WebSocketImpl(agentsWsUrl(server));
  socket.binaryType = 'arraybuffer';
  const frames: AgentWSEvent[] = [];
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  socket.addEventListener('open', () => {
    const action: Omit<Subscribe, 'ts'> = { _: 'Subscribe', key, ...(options.afterSeq === undefined ? {} : { afterSeq: options.afterSeq }) };
    signAction({ action, account: options.account ?? signer.principal, signer, ...(options.protocol === undefined ? {} : { protocol: options.protocol }) })
      .then(({ bytes }) => socket.send(bytes))
      .catch((error: unknown) => {
        failure = error;
        socket.close();
      });
  });
  socket.addEventListener('message', (event) => {
    // The server sends JSON text frames only; anything else is not an AgentWSEvent.
    if (typeof event.data !== 'string') return;
    try {
      frames.push(JSON.parse(event.data) as AgentWSEvent);
    } catch {
      return;
    }
    notify();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.addEventListener('close', ({ code, reason }) => {
      ended = true;
      notify();
      resolve({ code, reason });
    });
  });

  return {
    closed,
    close: () => socket.close(),
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const frame = frames.shift();
        if (frame) {
          yield frame;
          continue;
        }
        if (failure) throw failure;
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
