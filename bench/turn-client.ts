/**
 * The load generator's side of bench/turn.bench.ts: the server and model processes it starts, signed
 * calls through src/client, and one `/agents/ws` subscription per session that timestamps each
 * durable assistant message as it arrives.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Ed25519Signer } from '../src/client/ed25519-signer.js';
import { sendAction } from '../src/client/send-action.js';
import { signAction } from '../src/client/sign-action.js';
import { subscribe, type AgentsSubscription, type WebSocketConstructor } from '../src/client/subscribe.js';
import type { ModelCommand, ModelReply, ModelRequestRecord } from './turn-protocol.js';

/** Epoch milliseconds with sub-millisecond precision, comparable with the other processes' Date.now(). */
export const now = (): number => performance.timeOrigin + performance.now();

const WebSocket = (createRequire(import.meta.url)('ws') as { WebSocket: WebSocketConstructor }).WebSocket;
const ANSWER_TIMEOUT_MS = 60_000;

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/** `seed-agents serve` from dist/, dispatching, on a free port. SERVER_NODE_ARGS (e.g. `--cpu-prof`) go to it alone. */
export async function startServer(dataDir: string, env: Record<string, string>): Promise<ServerProcess> {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const nodeArgs = process.env.SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, ['--no-node-snapshot', ...nodeArgs, main, 'serve'], {
    env: { ...process.env, SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dataDir, SEED_AGENTS_LOG_LEVEL: 'warn', SEED_AGENTS_DISPATCH: 'on', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+?:\d+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  return {
    child,
    base,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ModelProcess {
  baseUrl: string;
  requests(from: number): Promise<{ requests: ModelRequestRecord[]; failures: number }>;
  count(): Promise<number>;
  stop(): void;
}

export async function startModel(): Promise<ModelProcess> {
  const child = fork(fileURLToPath(new URL('./turn-model.js', import.meta.url)), { execArgv: ['--no-node-snapshot'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiters: ((reply: ModelReply) => void)[] = [];
  child.on('message', (reply: ModelReply) => waiters.shift()?.(reply));
  const next = () => new Promise<ModelReply>((resolve) => waiters.push(resolve));
  const listening = await next();
  if (listening.type !== 'listening') throw new Error(`unexpected first message from the model: ${JSON.stringify(listening)}`);
  const requests = async (from: number) => {
    const reply = next();
    child.send({ type: 'requests', from } satisfies ModelCommand);
    const answer = await reply;
    if (answer.type !== 'requests') throw new Error(`unexpected answer from the model: ${JSON.stringify(answer)}`);
    return { requests: answer.requests, failures: answer.failures };
  };
  return {
    baseUrl: listening.baseUrl,
    requests,
    count: async () => (await requests(0)).requests.length,
    stop: () => child.disconnect(),
  };
}

export class Client {
  constructor(
    readonly base: string,
    readonly signer: Ed25519Signer,
  ) {}

  /** Signs first, so that the caller can time the send alone. */
  async sign(action: { _: string } & Record<string, unknown>): Promise<Uint8Array> {
    return (await signAction({ action, account: this.signer.principal, signer: this.signer })).bytes;
  }

  send<R>(bytes: Uint8Array): Promise<R> {
    return sendAction<R>(this.base, bytes);
  }

  async call<R>(action: { _: string } & Record<string, unknown>): Promise<R> {
    return this.send<R>(await this.sign(action));
  }
}

/** A session watched over `/agents/ws`: the arrival time of each durable assistant message, in order. */
export class WatchedSession {
  private readonly arrivals: number[] = [];
  private readonly waiting: ((at: number) => void)[] = [];
  private failure: Error | null = null;

  private constructor(
    readonly id: string,
    private readonly subscription: AgentsSubscription,
  ) {}

  static async open(client: Client, sessionId: string): Promise<WatchedSession> {
    const subscription = subscribe(client.base, client.signer, `sessions/${sessionId}`, { WebSocket, afterSeq: 0 });
    const watched = new WatchedSession(sessionId, subscription);
    await new Promise<void>((resolve, reject) => {
      void watched.read(resolve).catch(reject);
    });
    return watched;
  }

  private async read(subscribed: () => void): Promise<void> {
    try {
      for await (const frame of this.subscription) {
        if (frame._ === 'subscribed') subscribed();
        else if (frame._ === 'error') throw new Error(`session ${this.id}: ${frame.message}`);
        else if (frame._ === 'append' && 'event' in frame && frame.event.event.type === 'message' && frame.event.event.role === 'assistant') {
          const at = now();
          const waiter = this.waiting.shift();
          if (waiter) waiter(at);
          else this.arrivals.push(at);
        }
      }
    } catch (error) {
      this.failure = error as Error;
      throw error;
    }
  }

  /** When the next assistant message arrived (or arrives). */
  nextAnswer(): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const early = this.arrivals.shift();
    if (early !== undefined) return Promise.resolve(early);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no assistant answer in session ${this.id} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      this.waiting.push((at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  close(): void {
    this.subscription.close();
  }
}

export interface TurnSample {
  /** The message's text: unique, so the store and the model's records can be matched to it. */
  text: string;
  sessionId: string;
  /** Epoch ms just before the signed MessageSession was sent. */
  sentAt: number;
  /** Send → MessageSession's HTTP answer. */
  acceptedMs: number;
  /** Send → the durable assistant message's `append` frame. */
  latencyMs: number;
  answeredAt: number;
}

/** One message, timed from its send (already signed) to its answer's arrival. */
export async function timedTurn(client: Client, session: WatchedSession, text: string): Promise<TurnSample> {
  const bytes = await client.sign({ _: 'MessageSession', sessionId: session.id, content: [{ type: 'text', text }] });
  return sendTimed(client, session, text, bytes);
}

export async function sendTimed(client: Client, session: WatchedSession, text: string, bytes: Uint8Array): Promise<TurnSample> {
  const answer = session.nextAnswer();
  const sentAt = now();
  await client.send(bytes);
  const acceptedMs = now() - sentAt;
  const answeredAt = await answer;
  return { text, sessionId: session.id, sentAt, acceptedMs, latencyMs: answeredAt - sentAt, answeredAt };
}
