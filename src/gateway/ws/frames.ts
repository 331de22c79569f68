/**
 * Server → client frames: JSON text, serialized once per event however many sockets receive it.
 *
 * A frame is kept as the complete WebSocket text frame (RFC 6455 §5.2: FIN + text opcode, the
 * payload length, no mask — servers never mask), so the bytes built once are the bytes every
 * subscriber's socket is handed, with no per-socket framing.
 */
import type { AgentWSEvent } from '../../protocol/ws.js';

export type Frame = Buffer;

const FIN_TEXT = 0x81;

export function encodeFrame(event: AgentWSEvent): Frame {
  const json = JSON.stringify(event);
  const length = Buffer.byteLength(json);
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = FIN_TEXT;
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(json, header, 'utf8');
  return frame;
}

export const errorFrame = (message: string): Frame => encodeFrame({ _: 'error', message });

/** The refusal for a key that does not exist and for one the account may not see: the same words. */
export const notFoundMessage = (key: string): string => `Not found: ${key}`;
