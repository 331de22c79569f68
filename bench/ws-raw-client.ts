/**
 * A bare RFC 6455 client for the bench's load generator: the handshake over node:http, masked
 * binary frames out, and server frames parsed straight from the socket's chunks — no per-frame
 * objects or events, so hundreds of subscribers reading 250,000 frames a second leave the machine's
 * CPU to the server being measured. It answers pings (the server's heartbeat) and a close.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';

const TEXT = 0x1;
const BINARY = 0x2;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/** Called with each text frame's payload as `data[start, end)`; the bytes are valid only during the call. */
export type TextFrameHandler = (data: Buffer, start: number, end: number) => void;

export class RawWebSocket {
  private carry: Buffer | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly onText: TextFrameHandler,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
  }

  static open(url: string, onText: TextFrameHandler): Promise<RawWebSocket> {
    const { hostname, port, pathname } = new URL(url);
    return new Promise((resolve, reject) => {
      const request = http.request({
        host: hostname,
        port,
        path: pathname,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') },
      });
      request.on('upgrade', (_response, socket: Socket, head: Buffer) => {
        const client = new RawWebSocket(socket, onText);
        if (head.length) client.receive(head);
        resolve(client);
      });
      request.on('response', (response) => reject(new Error(`WebSocket handshake refused: HTTP ${response.statusCode}`)));
      request.on('error', reject);
      request.end();
    });
  }

  send(payload: Uint8Array): void {
    this.write(BINARY, payload);
  }

  close(): void {
    this.write(CLOSE, Uint8Array.of(0x03, 0xe8));
    this.socket.end();
  }

  /** Clients mask every frame (RFC 6455 §5.3). */
  private write(opcode: number, payload: Uint8Array): void {
    const length = payload.length;
    const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(header + 4 + length);
    frame[0] = 0x80 | opcode;
    if (header === 2) frame[1] = 0x80 | length;
    else if (header === 4) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeBigUInt64BE(BigInt(length), 2);
    }
    const mask = randomBytes(4);
    mask.copy(frame, header);
    for (let i = 0; i < length; i++) frame[header + 4 + i] = payload[i]! ^ mask[i & 3]!;
    this.socket.write(frame);
  }

  private receive(chunk: Buffer): void {
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    let offset = 0;
    while (offset + 2 <= data.length) {
      const opcode = data[offset]! & 0x0f;
      let length = data[offset + 1]! & 0x7f;
      let header = 2;
      if (length === 126) {
        if (offset + 4 > data.length) break;
        length = data.readUInt16BE(offset + 2);
        header = 4;
      } else if (length === 127) {
        if (offset + 10 > data.length) break;
        length = Number(data.readBigUInt64BE(offset + 2));
        header = 10;
      }
      const start = offset + header;
      const end = start + length;
      if (end > data.length) break;
      if (opcode === TEXT) this.onText(data, start, end);
      else if (opcode === PING) this.write(PONG, data.subarray(start, end));
      else if (opcode === CLOSE) this.socket.end();
      offset = end;
    }
    this.carry = offset < data.length ? Buffer.from(data.subarray(offset)) : null;
  }
}
