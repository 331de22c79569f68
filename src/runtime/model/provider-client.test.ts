import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerClient } from './provider-client.js';

describe('providerClient for chat', () => {
  let server: Server;
  let base: string;
  const seen: IncomingMessage[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request);
      request.resume();
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const chat = async (type: 'custom' | 'anthropic' | 'google' | 'ollama', apiKey: string | null): Promise<IncomingMessage> => {
    await providerClient({ type, baseUrl: `${base}/base`, apiKey }, 'chat', 5_000).chat.completions.create({ model: 'm', messages: [] });
    return seen.at(-1)!;
  };

  it.each([
    ['custom', '/base/chat/completions'],
    ['anthropic', '/base/v1/chat/completions'],
    ['google', '/base/openai/chat/completions'],
  ] as const)('given a %s provider with a key, then it posts to %s with a bearer key and nothing else', async (type, path) => {
    const request = await chat(type, 'k1');
    expect(request.url).toBe(path);
    expect(request.headers.authorization).toBe('Bearer k1');
    expect(request.headers['x-api-key']).toBeUndefined();
  });

  it('given a keyless server, then no Authorization header is sent', async () => {
    expect((await chat('ollama', null)).headers.authorization).toBeUndefined();
  });
});
