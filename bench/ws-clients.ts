/**
 * A worker thread of WebSocket subscribers for bench/ws.bench.ts: opens its sockets, subscribes each
 * to the session, and for every `append` frame checks the seq (each exactly once, in order) and
 * records receipt time minus the append time the server wrote into the event. The load generator
 * shares the machine's two cores with the server, so it reads frames with a bare client
 * (ws-raw-client.ts) and does not parse append frames whole.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ed25519Signer } from '../src/client/ed25519-signer.js';
import { signAction } from '../src/client/sign-action.js';
import { agentsWsUrl } from '../src/client/subscribe.js';
import type { AgentWSEvent } from '../src/protocol/ws.js';
import type { SessionEvent } from '../src/protocol/sessions.js';
import { RawWebSocket } from './ws-raw-client.js';
import { LATENCY_BUCKET_MS, LATENCY_BUCKETS, type ClientsConfig, type ClientsFinish, type ClientsReply, type ClientsResult } from './ws-protocol.js';

const config = workerData as ClientsConfig;
const post = (message: ClientsReply) => parentPort!.postMessage(message);

const histogram = new Uint32Array(LATENCY_BUCKETS);
let duplicated = 0;
let outOfOrder = 0;
let received = 0;

/**
 * 250,000 frames a second share two cores with the server, so an append frame is not parsed whole.
 * Its layout is fixed — `{"_":"append","key":"sessions/<id>","event":{"id":"<uuid>","sessionId":"<id>",
 * "seq":N,"event":{"type":"message","role":"user","content":"<append time>"…` — so seq and the
 * append time are read at their offsets, and every VERIFY_EVERY-th frame is parsed in full and
 * checked against that reading (a changed layout fails the bench rather than skewing it).
 */
const APPEND_MARK = '{"_":"append"';
const SEQ_AT = `{"_":"append","key":"sessions/${'0'.repeat(36)}","event":{"id":"${'0'.repeat(36)}","sessionId":"${'0'.repeat(36)}","seq":`.length;
const CONTENT_AFTER_SEQ = ',"event":{"type":"message","role":"user","content":"'.length;
const VERIFY_EVERY = 997;

const isAppend = (data: Buffer, at: number, end: number): boolean =>
  end - at > SEQ_AT && data[at + 6] === 0x61 && data[at + 7] === 0x70 && data[at + 11] === 0x64 && data[at + 12] === 0x22;

/** The decimal number at `start`, and where it ends. */
function decimalAt(data: Buffer, start: number): { value: number; end: number } {
  let value = 0;
  let i = start;
  for (let c = data[i]!; c >= 0x30 && c <= 0x39; c = data[++i]!) value = value * 10 + (c - 0x30);
  if (data[i] === 0x2e) {
    let scale = 0.1;
    for (let c = data[++i]!; c >= 0x30 && c <= 0x39; c = data[++i]!, scale /= 10) value += (c - 0x30) * scale;
  }
  return { value, end: i };
}

class Subscriber {
  /** seen[seq] = 1 once received. */
  private seen = new Uint8Array(1024);
  distinct = 0;
  frames = 0;
  private highest = 0;

  onAppend(data: Buffer, at: number, frameEnd: number, verify: boolean): void {
    const receivedAt = performance.timeOrigin + performance.now();
    const { value: seq, end } = decimalAt(data, at + SEQ_AT);
    const appendedAt = decimalAt(data, end + CONTENT_AFTER_SEQ).value;
    if (verify) {
      const text = data.toString('utf8', at, frameEnd);
      const frame = JSON.parse(text) as { _: string; event: SessionEvent };
      const content = Number((frame.event.event as { content: string }).content);
      if (!text.startsWith(APPEND_MARK) || frame.event.seq !== seq || Math.abs(content - appendedAt) > 1e-3) {
        throw new Error(`Misread an append frame (seq ${seq}, appended at ${appendedAt}): ${text}`);
      }
    }
    const latency = receivedAt - appendedAt;
    received++;
    if (seq >= this.seen.length) {
      const grown = new Uint8Array(Math.max(seq + 1, this.seen.length * 2));
      grown.set(this.seen);
      this.seen = grown;
    }
    if (this.seen[seq]) duplicated++;
    else {
      this.seen[seq] = 1;
      this.distinct++;
    }
    if (seq < this.highest) outOfOrder++;
    this.highest = Math.max(this.highest, seq);
    histogram[Math.min(LATENCY_BUCKETS - 1, Math.max(0, Math.floor(latency / LATENCY_BUCKET_MS)))]!++;
  }
}

async function open(signer: Awaited<ReturnType<typeof ed25519Signer>>, subscriber: Subscriber): Promise<RawWebSocket> {
  let settle!: { resolve: () => void; reject: (error: Error) => void };
  const subscribed = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const socket = await RawWebSocket.open(agentsWsUrl(config.url), (data, start, end) => {
    if (isAppend(data, start, end)) {
      subscriber.onAppend(data, start, end, ++subscriber.frames % VERIFY_EVERY === 0);
      return;
    }
    const frame = JSON.parse(data.toString('utf8', start, end)) as AgentWSEvent;
    if (frame._ === 'change') settle.resolve();
    else if (frame._ === 'error') settle.reject(new Error(`The server refused a subscription: ${frame.message}`));
  });
  const { bytes } = await signAction({ action: { _: 'Subscribe', key: config.key }, account: signer.principal, signer });
  socket.send(bytes);
  await subscribed;
  return socket;
}

async function run(): Promise<void> {
  const signer = await ed25519Signer(config.seed);
  const subscribers = Array.from({ length: config.sockets }, () => new Subscriber());
  const sockets = await Promise.all(subscribers.map((subscriber) => open(signer, subscriber)));
  post({ type: 'subscribed' });

  const finish = await new Promise<ClientsFinish>((resolve) => parentPort!.once('message', resolve));
  const deadline = Date.now() + finish.deadlineMs;
  while (Date.now() < deadline && subscribers.some((s) => s.distinct < finish.lastSeq)) await new Promise((resolve) => setTimeout(resolve, 20));
  const lost = subscribers.reduce((sum, s) => sum + (finish.lastSeq - s.distinct), 0);
  for (const socket of sockets) socket.close();
  const result: ClientsResult = { histogram, received, lost, duplicated, outOfOrder };
  parentPort!.postMessage({ type: 'done', result } satisfies ClientsReply, [histogram.buffer]);
}

run().catch((error: unknown) => post({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
