import { decode } from '@ipld/dag-cbor';
import type { Principal } from '../protocol/envelope.js';
import { signAction, type ActionSigner, type UnsignedAction } from './sign-action.js';

/** A refusal from the server: its HTTP status and its `{_: 'Error', message, code?}` body. */
export class AgentsClientError extends Error {
  override name = 'AgentsClientError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The request never got an answer (no server, DNS, TLS, CORS). Node's fetch says only "fetch failed"
 * and keeps the reason in `cause`, so the message carries both.
 */
export class AgentsTransportError extends Error {
  override name = 'AgentsTransportError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`could not reach ${url}: ${describe(cause)}`, { cause });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

export interface SendOptions {
  /** Defaults to the global fetch; tests and platforms with their own transport pass one. */
  fetch?: typeof fetch;
}

/** POSTs a signed envelope's bytes to `${baseUrl}/api/message` and returns the decoded response. */
export async function sendAction<R = unknown>(
  baseUrl: string,
  envelopeBytes: Uint8Array,
  options: SendOptions = {},
): Promise<R> {
  const send = options.fetch ?? fetch;
  const url = `${baseUrl.replace(/\/+$/, '')}/api/message`;
  let response: Response;
  try {
    response = await send(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/cbor', Accept: 'application/cbor' },
      body: envelopeBytes,
    });
  } catch (error) {
    throw new AgentsTransportError(url, error);
  }
  const body = new Uint8Array(await response.arrayBuffer());
  const decoded = decodeBody(response, body);
  if (!response.ok) throw refusal(response.status, decoded);
  return decoded as R;
}

export interface CallInput<A extends UnsignedAction> extends SendOptions {
  action: A;
  account: Principal;
  signer: ActionSigner;
  protocol?: number;
}

/** Signs `action` and sends it: the usual way to talk to the server. */
export async function call<R = unknown, A extends UnsignedAction = UnsignedAction>(
  baseUrl: string,
  { fetch: transport, ...input }: CallInput<A>,
): Promise<R> {
  const { bytes } = await signAction(input);
  return sendAction<R>(baseUrl, bytes, transport ? { fetch: transport } : {});
}

/**
 * A proxy or a server without the endpoint answers with HTML or plain text; the status and the
 * start of that text say more than the CBOR decoder's complaint would.
 */
function decodeBody(response: Response, body: Uint8Array): unknown {
  try {
    return decode(body);
  } catch (error) {
    const type = response.headers.get('content-type') ?? 'no content type';
    const text = new TextDecoder().decode(body.subarray(0, 200)).trim();
    throw new AgentsClientError(
      response.status,
      `HTTP ${response.status}: the response is not DAG-CBOR (${type}; ${(error as Error).message})` +
        (text ? `: ${text}` : ''),
    );
  }
}

function refusal(status: number, body: unknown): AgentsClientError {
  if (isErrorBody(body)) return new AgentsClientError(status, body.message, body.code);
  return new AgentsClientError(status, `HTTP ${status} without an {_: 'Error'} body`);
}

function isErrorBody(body: unknown): body is { _: 'Error'; message: string; code?: string } {
  if (typeof body !== 'object' || body === null) return false;
  const { _, message, code } = body as Record<string, unknown>;
  return _ === 'Error' && typeof message === 'string' && (code === undefined || typeof code === 'string');
}
