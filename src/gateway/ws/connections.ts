/** Every open `/agents/ws` socket in this process, with the heartbeat that drops the dead ones. */
import { Injectable } from '@nestjs/common';
import { Outbox, WsConnection, type ServerSocket } from './connection.js';

@Injectable()
export class WsConnections {
  private readonly bySocket = new Map<ServerSocket, WsConnection>();
  private readonly outbox = new Outbox();
  private nextId = 1;

  open(socket: ServerSocket): WsConnection {
    const connection = new WsConnection(this.nextId++, socket, this.outbox);
    this.bySocket.set(socket, connection);
    socket.on('pong', () => {
      connection.alive = true;
    });
    return connection;
  }

  get(socket: ServerSocket): WsConnection | undefined {
    return this.bySocket.get(socket);
  }

  /** The socket closed (either side): its subscriptions end with it. */
  closed(socket: ServerSocket): WsConnection | undefined {
    const connection = this.bySocket.get(socket);
    this.bySocket.delete(socket);
    connection?.end();
    return connection;
  }

  get size(): number {
    return this.bySocket.size;
  }

  endAll(code: number, reason: string): void {
    for (const connection of [...this.bySocket.values()]) connection.end(code, reason);
  }

  /**
   * Server-side liveness: a socket that did not answer the previous ping (browsers and `ws` answer
   * pings by themselves) is gone without a close — a dropped network, a sleeping laptop — and is
   * terminated so its subscriptions stop costing anything.
   */
  heartbeat(): void {
    for (const [socket, connection] of this.bySocket) {
      if (!connection.alive) {
        socket.terminate();
        continue;
      }
      connection.alive = false;
      socket.ping();
    }
  }
}
