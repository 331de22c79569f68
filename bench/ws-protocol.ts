/** Messages between bench/ws.bench.ts, its server child (bench/ws-server.ts) and its client workers (bench/ws-clients.ts). */

/** bench → server child. */
export type ServerCommand =
  | { type: 'append'; sessionId: string; account: string; perSecond: number; seconds: number }
  | { type: 'rss' };

/** server child → bench. */
export type ServerReply =
  | { type: 'listening'; port: number }
  | { type: 'appended'; events: number; seconds: number; behindMs: number; loopDelayP99Ms: number; loopDelayMaxMs: number }
  | { type: 'rss'; rssMb: number; peakRssMb: number; heapUsedMb: number; cpuSeconds: number };

export interface ClientsConfig {
  url: string;
  key: string;
  sockets: number;
  /** The signer's Ed25519 seed: each worker signs its own Subscribe envelopes. */
  seed: Uint8Array;
}

/** client worker → bench. */
export type ClientsReply =
  | { type: 'subscribed' }
  | { type: 'done'; result: ClientsResult }
  | { type: 'failed'; message: string };

/** bench → client worker: stop once every socket has this seq (or report what it has at the deadline). */
export interface ClientsFinish {
  type: 'finish';
  lastSeq: number;
  deadlineMs: number;
}

export interface ClientsResult {
  /** Latency histogram: count per LATENCY_BUCKET_MS bucket (last bucket: everything above). */
  histogram: Uint32Array;
  received: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
}

export const LATENCY_BUCKET_MS = 0.01;
export const LATENCY_BUCKETS = 1_000_000;
