/** The IPC messages between bench/turn.bench.ts and its model process (bench/turn-model.ts). */

export type ModelCommand = { type: 'requests'; from: number };

export interface ModelRequestRecord {
  /** Epoch ms when the request's body had arrived. */
  at: number;
  /** The model server's own share of the latency (request end → last byte written). */
  servedMs: number | null;
  /** The automatic title request (not streamed, no tools), not a turn. */
  title: boolean;
  /** The last line of the last message when it is a user's: the question the turn answers. */
  lastUserText: string | null;
  failed: boolean;
}

export type ModelReply =
  | { type: 'listening'; baseUrl: string }
  | { type: 'requests'; requests: ModelRequestRecord[]; failures: number };
