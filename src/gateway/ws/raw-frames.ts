/**
 * `/agents/ws` speaks raw frames — a client sends the DAG-CBOR bytes of a signed envelope, not Nest's
 * JSON `{event, data}` — so every inbound frame, binary or text, is handed to one gateway handler as
 * it came, and answered there (a text frame with an error frame saying what is accepted).
 */
import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';

/** The one message name every raw frame is routed under. */
export const RAW_FRAME = 'frame';

export type RawFrame = { binary: true; bytes: Uint8Array } | { binary: false; text: string };

type WsData = string | Buffer | ArrayBuffer | Buffer[];

export function rawFrame(data: WsData): { event: string; data: RawFrame } {
  if (typeof data === 'string') return { event: RAW_FRAME, data: { binary: false, text: data } };
  const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  return { event: RAW_FRAME, data: { binary: true, bytes } };
}

export class AgentsWsAdapter extends WsAdapter {
  constructor(app: INestApplicationContext) {
    super(app, { messageParser: rawFrame });
  }
}
