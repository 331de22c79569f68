import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../test/fixtures/scripted-model/scripted-model-server.js';
import { providerClient } from '../model/provider-client.js';
import { ModelStalledError, requestBody, streamModelReply, type ModelRequest } from './model-stream.js';

describe('streamModelReply', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const request: ModelRequest = { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }], tools: [] };
  const client = () => providerClient({ type: 'custom', baseUrl: server.baseUrl, apiKey: null }, 'chat', 5_000);

  it('given streamed text and tool calls, then the reply joins the text, assembles each call from its deltas, and reads the usage', async () => {
    server.push({
      reply: {
        chunks: ['Hel', 'lo'],
        toolCalls: [
          { id: 'c1', name: 'plan', arguments: { steps: [{ label: 'a' }] } },
          { id: 'c2', name: 'status', arguments: '{"title":"x"}' },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } },
      },
    });
    const deltas: string[] = [];
    const reply = await streamModelReply(client(), request, { signal: new AbortController().signal, onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(reply).toEqual({
      text: 'Hello',
      toolCalls: [
        { id: 'c1', name: 'plan', arguments: '{"steps":[{"label":"a"}]}' },
        { id: 'c2', name: 'status', arguments: '{"title":"x"}' },
      ],
      usage: { input: 7, output: 4, cacheRead: 3, cacheWrite: 0, total: 14 },
      finishReason: 'tool_calls',
    });
    expect(server.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('given a provider that stops sending, then the call gives up as stalled', async () => {
    server.push({ reply: { hang: true } });
    await expect(streamModelReply(client(), request, { signal: new AbortController().signal, onText: () => {}, idleTimeoutMs: 200 })).rejects.toBeInstanceOf(
      ModelStalledError,
    );
  });

  it('given a stream aborted midway, then it rejects rather than returning the text so far', async () => {
    server.push({ reply: { chunks: ['a', 'b', 'c'], chunkDelayMs: 300 } });
    const controller = new AbortController();
    const pending = streamModelReply(client(), request, { signal: controller.signal, onText: () => controller.abort() });
    await expect(pending).rejects.toThrow();
  });
});

describe('requestBody', () => {
  it('given defaults, a reasoning level and tools, then defaults sit under what the turn depends on', () => {
    const body = requestBody({
      model: 'm',
      messages: [],
      tools: [{ type: 'function', function: { name: 'plan', parameters: { type: 'object' } } }],
      reasoningLevel: 'high',
      modelDefaults: { temperature: 0.2, stream: false, model: 'other', reasoning_effort: 'low' },
    });
    expect(body).toEqual({
      temperature: 0.2,
      model: 'm',
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'plan', parameters: { type: 'object' } } }],
      reasoning_effort: 'high',
    });
  });

  it('given no tools and no level, then neither field is sent', () => {
    expect(Object.keys(requestBody({ model: 'm', messages: [], tools: [] }))).toEqual(['model', 'messages', 'stream', 'stream_options']);
  });
});
