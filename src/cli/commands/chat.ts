import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { AgentsClientError, AgentsTransportError, call as callServer } from '../../client/send-action.js';
import { subscribe, type WebSocketConstructor } from '../../client/subscribe.js';
import type { Ed25519Signer } from '../../client/ed25519-signer.js';
import type { AgentWSEvent } from '../../protocol/ws.js';
import type { GetSessionResponse, SessionEvent } from '../../protocol/sessions.js';
import { keyFilePath, readKeyFile } from '../key-file.js';
import { CliError, type Command } from '../run-cli.js';
import { serverUrl } from './call.js';

/** Node 20 has no WebSocket of its own; the `ws` package (a dependency of the server) provides one. */
const { WebSocket } = createRequire(import.meta.url)('ws') as { WebSocket: WebSocketConstructor };

/**
 * `seed-agents chat`: talk to an agent from the terminal. Each message is sent with MessageSession and
 * the reply is printed as it streams (the session's `appendPartial` text), then the turn's durable
 * events; a failed turn is one line on stderr. With no message argument, every line of stdin is one.
 */
export const chat: Command = {
  summary: 'chat (--agent ID | --session ID) [MESSAGE] [--server URL] [--key-file F]  message an agent and print its reply as it streams',
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { agent: { type: 'string' }, session: { type: 'string' }, title: { type: 'string' }, server: { type: 'string' }, 'key-file': { type: 'string' } },
    });
    if ((values.agent === undefined) === (values.session === undefined)) {
      throw new CliError('chat: give --agent ID (a new session) or --session ID (an existing one), one of them');
    }
    const signer = await readKeyFile(keyFilePath(values['key-file']));
    const server = serverUrl(values.server);
    const send = <R>(action: Record<string, unknown>) => callServer<R>(server, { action: action as never, account: signer.principal, signer });
    try {
      const sessionId =
        values.session ??
        (await send<{ sessionId: string }>({ _: 'CreateSession', agentId: values.agent, ...(values.title ? { title: values.title } : {}) })).sessionId;
      if (values.session === undefined) process.stderr.write(`session ${sessionId}\n`);
      const messages = positionals.length ? [positionals.join(' ')] : readLines();
      for await (const text of messages) {
        if (!text.trim()) continue;
        if (!(await turn(server, signer, sessionId, text, send))) return 1;
      }
      return 0;
    } catch (error) {
      if (error instanceof AgentsClientError || error instanceof AgentsTransportError) {
        process.stderr.write(`seed-agents chat: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
  },
};

async function* readLines(): AsyncIterable<string> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) yield line;
}

/** One message and its reply. False when the turn failed or was stopped. */
async function turn(
  server: string,
  signer: Ed25519Signer,
  sessionId: string,
  text: string,
  send: <R>(action: Record<string, unknown>) => Promise<R>,
): Promise<boolean> {
  const { events } = await send<GetSessionResponse>({ _: 'GetSession', sessionId });
  const afterSeq = events.at(-1)?.seq ?? 0;
  // Subscribed before the message goes, so not a delta of the reply is missed.
  const subscription = subscribe(server, signer, `sessions/${sessionId}`, { afterSeq, WebSocket });
  const frames = subscription[Symbol.asyncIterator]();
  let first = await frames.next();
  while (!first.done && first.value._ !== 'subscribed') {
    if (first.value._ === 'error') throw new CliError(`chat: ${first.value.message}`);
    first = await frames.next();
  }
  await send({ _: 'MessageSession', sessionId, content: [{ type: 'text', text }] });
  let streaming = false;
  let sawRun = false;
  let openLine = false;
  try {
    for (let next = await frames.next(); !next.done; next = await frames.next()) {
      const frame: AgentWSEvent = next.value;
      if (frame._ === 'appendPartial' && 'patch' in frame && 'textDelta' in frame.patch && frame.patch.textDelta) {
        process.stdout.write(frame.patch.textDelta);
        streaming = openLine = true;
      } else if (frame._ === 'append' && 'event' in frame) {
        openLine = printDurable(frame.event, streaming, openLine);
        streaming = false;
        if (frame.event.event.type === 'error') return false;
      } else if (frame._ === 'change' && frame.key.startsWith('sessions/')) {
        const status = (frame.value as { status?: string }).status;
        if (status === 'streaming') sawRun = true;
        else if (sawRun && status === 'stopped') {
          process.stderr.write('(stopped)\n');
          return false;
        } else if (sawRun && (status === 'idle' || status === 'error')) return status === 'idle';
      } else if (frame._ === 'error') {
        throw new CliError(`chat: ${frame.message}`);
      }
    }
    const { reason } = await subscription.closed;
    throw new CliError(`chat: the server closed the subscription${reason ? ` (${reason})` : ''}`);
  } finally {
    if (openLine) process.stdout.write('\n');
    subscription.close();
  }
}

/** Prints what the streamed text did not already show; true when the output line is left open. */
function printDurable({ event }: SessionEvent, streamed: boolean, openLine: boolean): boolean {
  const end = openLine ? '\n' : '';
  switch (event.type) {
    case 'message':
      if (event.role !== 'assistant' || (event.actor ?? 'agent') !== 'agent') return openLine;
      if (!streamed) process.stdout.write(`${end}${event.content}\n`);
      else process.stdout.write('\n');
      return false;
    case 'tool_call':
      process.stdout.write(`${end}[${event.name}]\n`);
      return false;
    case 'error':
      process.stdout.write(end);
      process.stderr.write(`error: ${event.message}\n`);
      return false;
    default:
      return openLine;
  }
}
