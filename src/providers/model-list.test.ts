import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../protocol/api-error.js';
import { listModels } from './model-list.js';

/** Answers each path with what `routes` says, remembering the requests. */
describe('listModels', () => {
  let server: Server;
  let base: string;
  const requests: IncomingMessage[] = [];
  const routes: Record<string, { status?: number; type?: string; body: string } | 'hang'> = {
    '/openai/models': { body: JSON.stringify({ object: 'list', data: [{ id: 'm1' }] }) },
    '/anthropic/v1/models?limit=1000': {
      body: JSON.stringify({ data: [{ id: 'claude-x', display_name: 'Claude X' }, { id: 'claude-y' }], has_more: false }),
    },
    '/google/models?pageSize=1000&key=gkey': {
      body: JSON.stringify({
        models: [
          { name: 'models/gemini-a', displayName: 'Gemini A', supportedGenerationMethods: ['generateContent'] },
          { name: 'models/embed', supportedGenerationMethods: ['embedContent'] },
          { name: 'models/gemini-b' },
        ],
      }),
    },
    '/shape/models': { body: JSON.stringify({ models: [] }) },
    '/html/models': { type: 'text/html', body: '<html>hi</html>' },
    '/broken/models': { body: '{"data": [' },
    '/echo/models': { status: 403, body: JSON.stringify({ error: { message: 'key sk-echo-123 is not allowed' } }) },
    '/slow/models': 'hang',
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request);
      const route = routes[request.url ?? ''];
      if (route === 'hang') return;
      response.statusCode = route?.status ?? (route ? 200 : 404);
      response.setHeader('content-type', route?.type ?? 'application/json');
      response.end(route?.body ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const failure = async (promise: Promise<unknown>): Promise<ApiError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  it('sends no Authorization header to a keyless server', async () => {
    expect(await listModels({ provider: 'p', type: 'ollama', baseUrl: `${base}/openai`, apiKey: null })).toEqual([{ id: 'm1', name: 'm1' }]);
    expect(requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('speaks Anthropic’s model list: x-api-key and display names', async () => {
    const models = await listModels({ provider: 'p', type: 'anthropic', baseUrl: `${base}/anthropic`, apiKey: 'akey' });
    expect(models).toEqual([
      { id: 'claude-x', name: 'Claude X' },
      { id: 'claude-y', name: 'claude-y' },
    ]);
    const request = requests.at(-1)!;
    expect(request.headers).toMatchObject({ 'x-api-key': 'akey', 'anthropic-version': '2023-06-01' });
    expect(request.headers.authorization).toBeUndefined();
  });

  it('speaks Google’s model list: key in the query, generating models only, ids without "models/"', async () => {
    const models = await listModels({ provider: 'p', type: 'google', baseUrl: `${base}/google`, apiKey: 'gkey' });
    expect(models).toEqual([
      { id: 'gemini-a', name: 'Gemini A' },
      { id: 'gemini-b', name: 'gemini-b' },
    ]);
  });

  it.each([
    ['shape', /^Custom response is invalid: the model list from 127\.0\.0\.1:\d+ has no "data" array$/],
    ['html', /^Custom response is invalid: the model list from 127\.0\.0\.1:\d+ is not JSON \(Unexpected token/],
    ['broken', /^Custom response is invalid: the model list from 127\.0\.0\.1:\d+ is not JSON \(/],
  ])('refuses a %s response with 502', async (path, message) => {
    const error = await failure(listModels({ provider: 'p', type: 'custom', baseUrl: `${base}/${path}`, apiKey: null }));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(message);
  });

  it('reports the provider’s HTTP status, with the key blanked out of its message', async () => {
    const error = await failure(listModels({ provider: 'p', type: 'custom', baseUrl: `${base}/echo`, apiKey: 'sk-echo-123' }));
    expect(error).toMatchObject({ status: 502, code: 'provider_error' });
    expect(error.message).toMatch(/^Custom request failed: HTTP 403 from 127\.0\.0\.1:\d+ \(key \[api key\] is not allowed\)$/);
  });

  it('gives up on a provider that does not answer, naming its host', async () => {
    const error = await failure(listModels({ provider: 'slow', type: 'custom', baseUrl: `${base}/slow`, apiKey: null, timeoutMs: 300 }));
    expect(error).toMatchObject({ status: 502, code: 'provider_unreachable' });
    expect(error.message).toMatch(/^Model provider "slow" at 127\.0\.0\.1:\d+ did not answer within 0.3 s$/);
  });

  it('names an unknown host', async () => {
    const error = await failure(listModels({ provider: 'p', type: 'custom', baseUrl: 'http://no-such-host.invalid/v1', apiKey: null }));
    expect(error.message).toMatch(/^Could not reach model provider "p" at no-such-host\.invalid: (host not found \(ENOTFOUND\)|host name lookup failed \(EAI_AGAIN\))$/);
  });
});
