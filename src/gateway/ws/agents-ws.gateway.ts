/**
 * `/agents/ws` (spec/upstream/websocket-subscriptions.md): `connected` on open, then one signed
 * Subscribe per key, each answered with `subscribed` and that key's frames — or an error frame.
 */
import { Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
} from '@nestjs/websockets';
import type { ServerSocket } from './connection.js';
import { WsConnections } from './connections.js';
import { encodeFrame } from './frames.js';
import { HEARTBEAT_MS, MAX_INBOUND_FRAME_BYTES } from './limits.js';
import { RAW_FRAME, type RawFrame } from './raw-frames.js';
import { SubscribeHandler } from './subscribe-handler.js';
import { WS_PATH } from '../../protocol/ws.js';

const GOING_AWAY = 1001;

// Frames are small JSON written once per event and fanned out: compressing each socket's copy
// would cost far more than the bytes it saves.
@WebSocketGateway({ path: WS_PATH, perMessageDeflate: false, maxPayload: MAX_INBOUND_FRAME_BYTES })
export class AgentsWsGateway implements OnGatewayConnection<ServerSocket>, OnGatewayDisconnect<ServerSocket>, OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('agents/ws');
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly connections: WsConnections,
    private readonly subscribe: SubscribeHandler,
  ) {}

  onModuleInit(): void {
    this.heartbeat = setInterval(() => this.connections.heartbeat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.connections.endAll(GOING_AWAY, 'Server shutting down; reconnect and resubscribe with afterSeq');
  }

  handleConnection(socket: ServerSocket): void {
    const connection = this.connections.open(socket);
    connection.send(encodeFrame({ _: 'connected', connectedAt: Date.now() }));
    this.logger.debug(`open conn=${connection.id} sockets=${this.connections.size}`);
  }

  handleDisconnect(socket: ServerSocket): void {
    const connection = this.connections.closed(socket);
    if (connection) this.logger.debug(`close conn=${connection.id} account=${connection.account ?? '-'} sockets=${this.connections.size}`);
  }

  @SubscribeMessage(RAW_FRAME)
  onFrame(@ConnectedSocket() socket: ServerSocket, @MessageBody() frame: RawFrame): void {
    const connection = this.connections.get(socket);
    if (connection) connection.serially(() => this.subscribe.handle(connection, frame));
  }
}
