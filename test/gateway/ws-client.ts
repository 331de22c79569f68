/**
 * A test client for /agents/ws: a `ws` socket whose frames are collected in order, read one at a
 * time, with Subscribe envelopes signed by @seed-hypermedia/client exactly as the Seed apps sign them.
 */
import { createRequire } from 'node:module';
import type { WebSocketConstructor } from '../../src/client/subscribe.js';
import type { AgentWSEvent } from '../../src/protocol/ws.js';
import { signedBody, type KeyPair } from './signed.js';

/** What the tests use of a `ws` client socket (the package ships no type declarations here). */
export interface NodeClientSocket {
  readonly readyState: number;
  send(data: Uint8Array | string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  pause(): void;
  resume(): void;
  on(event: 'open', listener: () => void): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

export type NodeClientSocketConstructor = new (url: string, options?: { perMessageDeflate?: boolean }) => NodeClientSocket;

const wsPackage = createRequire(import.meta.url)('ws') as { WebSocket: NodeClientSocketConstructor & WebSocketConstructor };
export const NodeWebSocket: NodeClientSocketConstructor = wsPackage.WebSocket;
/** The same class through its browser-style API, as src/client/subscribe.ts takes it. */
export const BrowserStyleWebSocket: WebSocketConstructor = wsPackage.WebSocket;

export const wsUrl = (base: string): string => `${base.replace(/^http/, 'ws')}/agents/ws`;

export interface SubscribeOptions {
  afterSeq?: number;
  account?: KeyPair;
  ts?: number;
}

export class TestSocket {
  readonly frames: AgentWSEvent[] = [];
  /** Binary frames received: the server must send none. */
  binaryFrames = 0;
  readonly closed: Promise<{ code: number; reason: string }>;
  private read = 0;
  private wake: (() => void) | null = null;
  private isClosed = false;

  private constructor(readonly socket: NodeClientSocket) {
    socket.on('message', (data, isBinary) => {
      if (isBinary) this.binaryFrames++;
      this.frames.push(JSON.parse(data.toString()) as AgentWSEvent);
      this.wake?.();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        this.isClosed = true;
        this.wake?.();
        resolve({ code, reason: reason.toString() });
      }),
    );
  }

  /** Open, with the server's `connected` frame already read. */
  static async open(base: string): Promise<TestSocket> {
    const socket = new NodeWebSocket(wsUrl(base));
    // Listening before the socket opens: a frame right behind the handshake is emitted before a
    // continuation awaiting 'open' would run.
    const client = new TestSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
    const connected = await client.next();
    if (connected._ !== 'connected') throw new Error(`Expected a connected frame first, got ${JSON.stringify(connected)}`);
    return client;
  }

  send(data: Uint8Array | string): void {
    this.socket.send(data);
  }

  async subscribe(signer: KeyPair, key: string, options: SubscribeOptions = {}): Promise<void> {
    const action = { _: 'Subscribe', key, ...(options.afterSeq === undefined ? {} : { afterSeq: options.afterSeq }) };
    this.send(await signedBody(signer, action, { ...(options.account ? { account: options.account } : {}), ...(options.ts ? { ts: options.ts } : {}) }));
  }

  /** The next frame not read yet. */
  async next(timeoutMs = 5_000): Promise<AgentWSEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.read >= this.frames.length) {
      if (this.isClosed) throw new Error('The socket closed before the next frame');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No frame within ${timeoutMs} ms; read so far: ${JSON.stringify(this.frames.slice(-5))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.frames[this.read++]!;
  }

  /** Reads frames until one matches, returning it; the frames skipped are still in `frames`. */
  async until(match: (frame: AgentWSEvent) => boolean, timeoutMs = 5_000): Promise<AgentWSEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = await this.next(Math.max(1, deadline - Date.now()));
      if (match(frame)) return frame;
    }
  }

  /** Nothing arrives for `ms` (frames already received and unread count as arrivals). */
  async quiet(ms = 200): Promise<AgentWSEvent[]> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const unread = this.frames.slice(this.read);
    this.read = this.frames.length;
    return unread;
  }

  close(): Promise<{ code: number; reason: string }> {
    this.socket.close();
    return this.closed;
  }
}

export const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'llama-3.1-8b' };
export const provider = { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' };
export const text = (words: string) => [{ type: 'text', text: words }];
