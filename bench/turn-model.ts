/**
 * The model bench/turn.bench.ts measures against, in a process of its own (so neither the server
 * nor the load generator shares its event loop): the scripted OpenAI-compatible server, answering
 * every request at once — a short streamed reply to a turn, a title to the title request.
 *
 * It talks to its parent over IPC: it sends `{type: 'listening', baseUrl}` once it listens, and
 * answers `{type: 'requests', from}` with the requests recorded since index `from`.
 */
import { startScriptedModelServer } from '../test/fixtures/scripted-model/scripted-model-server.js';
import type { ModelCommand, ModelReply, ModelRequestRecord } from './turn-protocol.js';

const model = await startScriptedModelServer({
  fallback: (request) => (request.stream === true ? { text: 'Done.' } : { text: 'Benchmark session' }),
});

function lastUserText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return undefined;
}

const send = (reply: ModelReply) => process.send!(reply);

process.on('message', (command: ModelCommand) => {
  if (command.type === 'requests') {
    const requests: ModelRequestRecord[] = model.requests.slice(command.from).map((r) => {
      const last = r.body?.messages.at(-1);
      return {
        at: r.at,
        servedMs: r.servedMs ?? null,
        title: r.body !== undefined && r.body.stream !== true && !r.body.tools?.length,
        lastUserText: last?.role === 'user' ? (lastUserText(last.content)?.split('\n').at(-1) ?? null) : null,
        failed: r.status !== 200,
      };
    });
    send({ type: 'requests', requests, failures: model.failures.length });
  }
});
process.on('disconnect', () => void model.close().then(() => process.exit(0)));

send({ type: 'listening', baseUrl: model.baseUrl });
