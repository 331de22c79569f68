import { describe, expect, it } from 'vitest';
import type { ServerSocket } from './connection.js';
import { WsConnections } from './connections.js';

/** A socket that records what the heartbeat does to it, and answers pings when told to. */
function fakeSocket() {
  const calls: string[] = [];
  let onPong = () => {};
  const socket: ServerSocket = {
    readyState: 1,
    bufferedAmount: 0,
    _socket: { cork: () => {}, uncork: () => {}, write: () => calls.push('write') > 0 },
    close: () => calls.push('close'),
    terminate: () => calls.push('terminate'),
    ping: () => calls.push('ping'),
    on: (_event, listener) => {
      onPong = listener;
    },
  };
  return { socket, calls, pong: () => onPong() };
}

describe('WsConnections heartbeat', () => {
  it('pings every socket, and terminates one that did not answer the previous ping', () => {
    const connections = new WsConnections();
    const answering = fakeSocket();
    const silent = fakeSocket();
    connections.open(answering.socket);
    connections.open(silent.socket);

    connections.heartbeat();
    expect(answering.calls).toEqual(['ping']);
    expect(silent.calls).toEqual(['ping']);
    answering.pong();

    connections.heartbeat();
    expect(answering.calls).toEqual(['ping', 'ping']);
    expect(silent.calls).toEqual(['ping', 'terminate']);
  });
});
