/**
 * Live fan-out over /agents/ws: SUBSCRIBERS WebSocket subscribers (500) on one session while the
 * server appends Log events at a steady RATE (500/s) for SECONDS (30). The server runs in a process of
 * its own (bench/ws-server.ts) and appends straight through its EventLog, stamping each event with its
 * append time; the subscribers run here on CLIENT_THREADS worker threads (bench/ws-clients.ts) and
 * measure append → receipt. Every subscriber must receive every event exactly once, in order.
 *
 * The baseline, measured first in the same run: the same appends with one subscriber.
 *
 *   npm run bench:ws
 *
 * The last line is one JSON object: subscribers, events, p50Ms, p99Ms, lost, duplicated, outOfOrder,
 * serverRssMb, and the baseline figures and ratios.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { generateSigner, type Ed25519Signer } from '../src/client/ed25519-signer.js';
import { call } from '../src/client/send-action.js';
import { principalToString } from '../src/protocol/principal.js';
import { round } from './lib/stats.js';
import {
  LATENCY_BUCKET_MS,
  type ClientsConfig,
  type ClientsFinish,
  type ClientsReply,
  type ClientsResult,
  type ServerCommand,
  type ServerReply,
} from './ws-protocol.js';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 500);
const RATE = Number(process.env.RATE ?? 500);
const SECONDS = Number(process.env.SECONDS ?? 30);
const BASELINE_SECONDS = Number(process.env.BASELINE_SECONDS ?? 10);
/** One thread keeps up (measured: about half a core for 250,000 frames/s); more only compete with the server. */
const CLIENT_THREADS = Number(process.env.CLIENT_THREADS ?? 1);

class Server {
  private readonly waiters: ((reply: ServerReply) => void)[] = [];

  private constructor(readonly child: ChildProcess) {
    child.on('message', (reply: ServerReply) => this.waiters.shift()?.(reply));
  }

  static async start(dir: string): Promise<{ server: Server; base: string }> {
    const child = fork(fileURLToPath(new URL('./ws-server.js', import.meta.url)), {
      // SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server alone.
      execArgv: ['--no-node-snapshot', ...(process.env.SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
      env: { ...process.env, SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dir, SEED_AGENTS_LOG_LEVEL: 'warn' },
    });
    const server = new Server(child);
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`The server exited (${code})`))));
    const listening = await Promise.race([server.next(), exited]);
    if (listening.type !== 'listening') throw new Error(`Unexpected first message from the server: ${JSON.stringify(listening)}`);
    return { server, base: `http://127.0.0.1:${listening.port}` };
  }

  next(): Promise<ServerReply> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async ask<T extends ServerReply['type']>(command: ServerCommand, type: T): Promise<Extract<ServerReply, { type: T }>> {
    const answer = this.next();
    this.child.send(command);
    const reply = await answer;
    if (reply.type !== type) throw new Error(`Expected ${type} from the server, got ${JSON.stringify(reply)}`);
    return reply as Extract<ServerReply, { type: T }>;
  }

  stop(): void {
    this.child.disconnect();
  }
}

interface Figures {
  subscribers: number;
  events: number;
  appendSeconds: number;
  appendBehindMs: number;
  serverLoopDelayP99Ms: number;
  serverLoopDelayMaxMs: number;
  frames: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  serverRssMb: number;
  serverPeakRssMb: number;
  serverHeapUsedMb: number;
  /** CPU seconds used while appending and delivering, by the server and by this process's client threads. */
  serverCpuSeconds: number;
  clientCpuSeconds: number;
  /** The machine's 1-minute load average when the appends ended: other work skews the figures. */
  loadAverage: number;
}

function percentileOf(histogram: Uint32Array, total: number, p: number): number {
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return (i + 1) * LATENCY_BUCKET_MS;
  }
  return NaN;
}

function maxOf(histogram: Uint32Array): number {
  for (let i = histogram.length - 1; i >= 0; i--) if (histogram[i]) return (i + 1) * LATENCY_BUCKET_MS;
  return 0;
}

async function scenario(server: Server, base: string, signer: Ed25519Signer, sessionId: string, subscribers: number, seconds: number): Promise<Figures> {
  const threads = Math.min(CLIENT_THREADS, subscribers);
  const workers = Array.from({ length: threads }, (_, i) => {
    const sockets = Math.floor(subscribers / threads) + (i < subscribers % threads ? 1 : 0);
    const workerData: ClientsConfig = { url: base, key: `sessions/${sessionId}`, sockets, seed: signer.seed };
    const worker = new Worker(fileURLToPath(new URL('./ws-clients.js', import.meta.url)), { workerData });
    const replies: ClientsReply[] = [];
    const waiting: ((reply: ClientsReply) => void)[] = [];
    worker.on('message', (reply: ClientsReply) => {
      const waiter = waiting.shift();
      if (waiter) waiter(reply);
      else replies.push(reply);
    });
    const next = async (): Promise<ClientsReply> => {
      const reply = replies.shift() ?? (await new Promise<ClientsReply>((resolve) => waiting.push(resolve)));
      if (reply.type === 'failed') throw new Error(`A client worker failed: ${reply.message}`);
      return reply;
    };
    return { worker, next };
  });
  await Promise.all(workers.map((w) => w.next()));
  const serverCpuBefore = (await server.ask({ type: 'rss' }, 'rss')).cpuSeconds;
  const clientCpuBefore = process.cpuUsage();
  const appended = await server.ask({ type: 'append', sessionId, account: principalToString(signer.principal), perSecond: RATE, seconds }, 'appended');
  const finish: ClientsFinish = { type: 'finish', lastSeq: appended.events, deadlineMs: 10_000 };
  for (const { worker } of workers) worker.postMessage(finish);
  const results = await Promise.all(
    workers.map(async ({ worker, next }) => {
      const reply = await next();
      await worker.terminate();
      return (reply as Extract<ClientsReply, { type: 'done' }>).result;
    }),
  );
  const histogram = new Uint32Array(results[0]!.histogram.length);
  for (const result of results) for (let i = 0; i < histogram.length; i++) histogram[i]! += result.histogram[i]!;
  const sum = (field: keyof Omit<ClientsResult, 'histogram'>) => results.reduce((total, result) => total + result[field], 0);
  const frames = sum('received');
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const rss = await server.ask({ type: 'rss' }, 'rss');
  return {
    subscribers,
    events: appended.events,
    appendSeconds: round(appended.seconds, 2),
    appendBehindMs: round(appended.behindMs, 1),
    serverLoopDelayP99Ms: round(appended.loopDelayP99Ms, 1),
    serverLoopDelayMaxMs: round(appended.loopDelayMaxMs, 1),
    frames,
    p50Ms: round(percentileOf(histogram, frames, 50), 2),
    p99Ms: round(percentileOf(histogram, frames, 99), 2),
    maxMs: round(maxOf(histogram), 2),
    lost: sum('lost'),
    duplicated: sum('duplicated'),
    outOfOrder: sum('outOfOrder'),
    serverRssMb: round(rss.rssMb, 1),
    serverPeakRssMb: round(rss.peakRssMb, 1),
    serverHeapUsedMb: round(rss.heapUsedMb, 1),
    serverCpuSeconds: round(rss.cpuSeconds - serverCpuBefore, 2),
    clientCpuSeconds: round((clientCpu.user + clientCpu.system) / 1e6, 2),
    loadAverage: round(loadavg()[0]!, 2),
  };
}

function describe(name: string, f: Figures): void {
  console.log(
    `${name.padEnd(24)} ${String(f.subscribers).padStart(4)} subscribers  ${f.events} events in ${f.appendSeconds} s ` +
      `(appender at most ${f.appendBehindMs} ms behind; server event-loop delay p99 ${f.serverLoopDelayP99Ms} ms, max ${f.serverLoopDelayMaxMs} ms)  ` +
      `${f.frames.toLocaleString('en-US')} frames  ` +
      `p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms  max ${f.maxMs} ms  lost ${f.lost}  duplicated ${f.duplicated}  out of order ${f.outOfOrder}  ` +
      `server RSS ${f.serverRssMb} MB (peak ${f.serverPeakRssMb} MB, JS heap ${f.serverHeapUsedMb} MB)  CPU s: server ${f.serverCpuSeconds}, clients ${f.clientCpuSeconds}  ` +
      `load average ${f.loadAverage}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'ws-bench-'));
const { server, base } = await Server.start(dir);
try {
  const signer = await generateSigner();
  const ask = (action: { _: string } & Record<string, unknown>) => call<Record<string, string>>(base, { action, account: signer.principal, signer });
  await ask({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
  const { agentId } = await ask({ _: 'CreateAgent', definition: { name: 'Bench', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' } });
  const baselineSession = (await ask({ _: 'CreateSession', agentId })).sessionId!;
  const session = (await ask({ _: 'CreateSession', agentId })).sessionId!;

  console.log(`appending ${RATE}/s; ${CLIENT_THREADS} client threads`);
  const baseline = await scenario(server, base, signer, baselineSession, 1, BASELINE_SECONDS);
  describe('baseline: 1 subscriber', baseline);
  const fanOut = await scenario(server, base, signer, session, SUBSCRIBERS, SECONDS);
  describe(`fan-out: ${SUBSCRIBERS} subscribers`, fanOut);
  const ratios = {
    p50VsBaseline: round(fanOut.p50Ms / baseline.p50Ms, 2),
    p99VsBaseline: round(fanOut.p99Ms / baseline.p99Ms, 2),
    peakRssVsBaseline: round(fanOut.serverPeakRssMb / baseline.serverPeakRssMb, 2),
  };
  console.log(
    `ratios against the baseline: p50 ×${ratios.p50VsBaseline}, p99 ×${ratios.p99VsBaseline}, server peak RSS ×${ratios.peakRssVsBaseline}` +
      `  (target: p99 ≤ 50 ms${fanOut.p99Ms <= 50 ? ', met' : ', MISSED'})`,
  );
  console.log(
    JSON.stringify({
      subscribers: fanOut.subscribers,
      events: fanOut.events,
      ratePerSecond: RATE,
      frames: fanOut.frames,
      p50Ms: fanOut.p50Ms,
      p99Ms: fanOut.p99Ms,
      maxMs: fanOut.maxMs,
      lost: fanOut.lost,
      duplicated: fanOut.duplicated,
      outOfOrder: fanOut.outOfOrder,
      serverRssMb: fanOut.serverPeakRssMb,
      serverCpuSeconds: fanOut.serverCpuSeconds,
      clientCpuSeconds: fanOut.clientCpuSeconds,
      serverLoopDelayP99Ms: fanOut.serverLoopDelayP99Ms,
      clientThreads: CLIENT_THREADS,
      loadAverage: fanOut.loadAverage,
      baseline: { subscribers: 1, events: baseline.events, p50Ms: baseline.p50Ms, p99Ms: baseline.p99Ms, serverRssMb: baseline.serverPeakRssMb },
      ratios,
      targets: { p99AtMost50Ms: fanOut.p99Ms <= 50, everyEventOnceInOrder: fanOut.lost + fanOut.duplicated + fanOut.outOfOrder === 0 },
    }),
  );
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
