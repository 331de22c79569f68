/** Signed requests as the Seed apps build them: signed by @seed-hypermedia/client itself. */
import { decode, encode } from '@ipld/dag-cbor';
import type { INestApplication } from '@nestjs/common';
import { generateNobleKeyPair, sign, type NobleKeyPair } from '@seed-hypermedia/client/blobs';
import { loadConfig } from '../../src/config/config.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { startServer } from '../../src/server.js';

export type KeyPair = NobleKeyPair;
export const newKey = (): KeyPair => generateNobleKeyPair();

export async function signedBody(
  signer: KeyPair,
  action: Record<string, unknown>,
  options: { account?: KeyPair; protocol?: number; ts?: number } = {},
): Promise<Uint8Array> {
  const envelope = {
    type: 'AgentsAction',
    signer: signer.principal,
    sig: new Uint8Array(64),
    account: (options.account ?? signer).principal,
    ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
    action: { ...action, ts: options.ts ?? Date.now() },
  };
  return encode(await sign(signer, envelope as never));
}

export async function post(
  baseUrl: string,
  body: Uint8Array | string,
  contentType = 'application/cbor',
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const response = await fetch(`${baseUrl}/api/message`, {
    method: 'POST',
    headers: { 'Content-Type': contentType, Accept: 'application/cbor' },
    body,
  });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/**
 * A server on a free port over `dataDir`, logging warnings only. It claims no runs unless asked to:
 * most tests check what actions append, and a run executing meanwhile would append too.
 */
export async function startTestServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ app: INestApplication; base: string }> {
  const { app, port } = await startServer(
    loadConfig({ SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dataDir, SEED_AGENTS_LOG_LEVEL: 'warn', SEED_AGENTS_DISPATCH: 'off', ...env }),
  );
  return { app, base: `http://127.0.0.1:${port}` };
}

/** Signed actions as a test sends them: `call` answers status and value, `ok` insists on 200. */
export function signedApi(base: string, defaultSigner: KeyPair) {
  const call = async (action: Record<string, unknown>, signer: KeyPair = defaultSigner, account?: KeyPair) => {
    const response = await post(base, await signedBody(signer, action, { protocol: AGENTS_PROTOCOL_VERSION, ...(account ? { account } : {}) }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown> };
  };
  const ok = async (action: Record<string, unknown>, signer: KeyPair = defaultSigner, account?: KeyPair) => {
    const answer = await call(action, signer, account);
    if (answer.status !== 200) throw new Error(`${String(action._)} answered ${answer.status}: ${JSON.stringify(answer.value)}`);
    return answer.value;
  };
  return { call, ok };
}
