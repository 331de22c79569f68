import { decode, encode } from '@ipld/dag-cbor';
import * as blobs from '@seed-hypermedia/client/blobs';
import { describe, expect, it } from 'vitest';
import { ed25519Signer } from './ed25519-signer.js';
import { AgentsClientError, AgentsTransportError, call, sendAction } from './send-action.js';

interface Seen {
  url: string;
  method: string | undefined;
  headers: Headers;
  body: Uint8Array;
}

function fakeFetch(response: () => Response): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({
      url: String(url),
      method: init?.method,
      headers: new Headers(init?.headers),
      body: init?.body as Uint8Array,
    });
    return response();
  };
  return { fetch: f as typeof fetch, seen };
}

const cbor = (value: unknown, status = 200) =>
  new Response(encode(value), { status, headers: { 'Content-Type': 'application/cbor' } });

describe('sendAction', () => {
  it('POSTs the bytes as CBOR to /api/message and decodes the answer', async () => {
    const { fetch, seen } = fakeFetch(() => cbor({ _: 'ListSignersResponse', signers: [] }));
    const body = Uint8Array.of(0xa0);
    const answer = await sendAction('http://agents.test/', body, { fetch });
    expect(answer).toEqual({ _: 'ListSignersResponse', signers: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('http://agents.test/api/message');
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.headers.get('content-type')).toBe('application/cbor');
    expect(seen[0]!.headers.get('accept')).toBe('application/cbor');
    expect(seen[0]!.body).toBe(body);
  });

  it('throws the server\'s error message, status and code', async () => {
    const { fetch } = fakeFetch(() =>
      cbor({ _: 'Error', message: 'client protocol 0 is older than 1', code: 'protocol_too_old' }, 426),
    );
    const error = await sendAction('http://agents.test', Uint8Array.of(0xa0), { fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentsClientError);
    expect(error).toMatchObject({ status: 426, message: 'client protocol 0 is older than 1', code: 'protocol_too_old' });
  });

  it('says so, with the status and the text, when the body is not CBOR', async () => {
    const { fetch } = fakeFetch(
      () => new Response('Cannot POST /api/message', { status: 404, headers: { 'Content-Type': 'text/html' } }),
    );
    const error = await sendAction('http://agents.test', Uint8Array.of(0xa0), { fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentsClientError);
    expect((error as AgentsClientError).status).toBe(404);
    expect((error as Error).message).toMatch(
      /^HTTP 404: the response is not DAG-CBOR \(text\/html; .+\): Cannot POST \/api\/message$/,
    );
  });

  it('names the URL and the underlying reason when the request gets no answer', async () => {
    const fetch = (async () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    }) as typeof globalThis.fetch;
    const error = await sendAction('http://127.0.0.1:1', Uint8Array.of(0xa0), { fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentsTransportError);
    expect((error as Error).message).toBe(
      'could not reach http://127.0.0.1:1/api/message: fetch failed (connect ECONNREFUSED 127.0.0.1:1)',
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('reports a CBOR error status whose body is not an Error', async () => {
    const { fetch } = fakeFetch(() => cbor({ oops: true }, 500));
    await expect(sendAction('http://agents.test', Uint8Array.of(0xa0), { fetch })).rejects.toMatchObject({
      status: 500,
      message: "HTTP 500 without an {_: 'Error'} body",
    });
  });
});

describe('call', () => {
  it('sends a verifiable signed envelope for the account', async () => {
    const { fetch, seen } = fakeFetch(() => cbor({ _: 'ListSignersResponse', signers: [] }));
    const signer = await ed25519Signer(new Uint8Array(32).fill(3));
    const account = blobs.generateNobleKeyPair().principal;
    const answer = await call('http://agents.test', { action: { _: 'ListSigners' }, account, signer, fetch });
    expect(answer).toEqual({ _: 'ListSignersResponse', signers: [] });
    const envelope = decode(seen[0]!.body) as blobs.Blob & { account: Uint8Array; action: { _: string } };
    expect(envelope.account).toStrictEqual(account);
    expect(envelope.signer).toStrictEqual(signer.principal);
    expect(envelope.action._).toBe('ListSigners');
    expect(blobs.verify(envelope)).toBe(true);
  });
});
