/**
 * The server bench/ws.bench.ts measures, in a process of its own: the application, plus a steady
 * appender of session Log events straight through the EventLog. Each event carries its append time
 * (performance.timeOrigin + performance.now(), comparable across processes) as its text, so a
 * client computes append-to-receipt latency from the frame alone.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config/config.js';
import { EVENT_LOG } from '../src/events/events.module.js';
import type { EventLog } from '../src/events/event-log.js';
import { startServer } from '../src/server.js';
import { SessionLogWriter } from './ws-log.js';
import type { ServerCommand, ServerReply } from './ws-protocol.js';

const reply = (message: ServerReply) => process.send!(message);

const { app, port } = await startServer(loadConfig());
const log = app.get<EventLog>(EVENT_LOG);

async function appendSteadily(command: Extract<ServerCommand, { type: 'append' }>): Promise<void> {
  const writer = await SessionLogWriter.open(log, command.sessionId, command.account);
  // How long the server's event loop was kept from running: what the fan-out costs it in latency.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const total = command.perSecond * command.seconds;
  const intervalMs = 1000 / command.perSecond;
  const started = performance.now();
  let behindMs = 0;
  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    else behindMs = Math.max(behindMs, -wait);
    await writer.append([String(performance.timeOrigin + performance.now())]);
  }
  loopDelay.disable();
  reply({
    type: 'appended',
    events: total,
    seconds: (performance.now() - started) / 1000,
    behindMs,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  });
}

function rss(): ServerReply {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  const cpu = process.cpuUsage();
  return { type: 'rss', rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024, heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

process.on('message', (command: ServerCommand) => {
  if (command.type === 'rss') reply(rss());
  else void appendSteadily(command);
});
process.on('disconnect', () => void app.close().then(() => process.exit(0)));
reply({ type: 'listening', port });
