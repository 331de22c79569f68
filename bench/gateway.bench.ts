/**
 * Signed requests per second end to end — signed by the load generator, verified, dispatched,
 * answered in DAG-CBOR — beside an unsigned Nest route doing the same CBOR work on the same server
 * (bench/gateway-server.ts) and the raw node:crypto verify rate, all in one run. The server runs in
 * its own process; this process generates the load over keep-alive connections.
 *
 *   npm run bench:gateway
 *
 * The last line is one JSON object: signedReqPerSec, unsignedReqPerSec, ratio, verifyPerSec, p50Ms, p99Ms
 * (rates are medians of interleaved rounds).
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { encode } from '@ipld/dag-cbor';
import { Ed25519Verifier } from '../src/signing/ed25519-verifier.js';
import { percentile, round, sortedCopy } from './lib/stats.js';

const REQUESTS = Number(process.env.REQUESTS ?? 5_000);
/** Unsigned and signed runs alternate, and medians are compared: the machine's noise hits both. */
const ROUNDS = 5;
const CONCURRENCY = 32;

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { privateKey, raw, principal: Uint8Array.from([0xed, 0x01, ...raw]) };
}

/** What @seed-hypermedia/client's blobs.sign produces: sign the encoding with a zeroed sig. */
function signedListSigners(key: ReturnType<typeof keyPair>): Uint8Array {
  const envelope = { type: 'AgentsAction', signer: key.principal, sig: new Uint8Array(64), account: key.principal, action: { _: 'ListSigners', ts: Date.now() } };
  envelope.sig = cryptoSign(null, encode(envelope), key.privateKey);
  return encode(envelope);
}

async function startServer(dir: string): Promise<{ base: string; stop(): void }> {
  const main = fileURLToPath(new URL('./gateway-server.js', import.meta.url));
  const child = spawn(process.execPath, ['--no-node-snapshot', main], {
    env: { ...process.env, SEED_AGENTS_PORT: '0', SEED_AGENTS_DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  return { base: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function request(base: URL, path: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path, method: 'POST', agent, headers: { 'content-type': 'application/cbor', 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function load(count: number, send: (i: number) => Promise<number>): Promise<{ perSec: number; latencies: Float64Array }> {
  const latencies = new Float64Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t = performance.now();
        const status = await send(i);
        if (status !== 200) throw new Error(`request ${i}: status ${status}`);
        latencies[i] = performance.now() - t;
      }
    }),
  );
  return { perSec: count / ((performance.now() - started) / 1000), latencies };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function verifyRate(): number {
  const key = keyPair();
  const message = encode({ type: 'AgentsAction', action: { _: 'ListSigners', ts: Date.now() } });
  const sig = cryptoSign(null, message, key.privateKey);
  const verifier = new Ed25519Verifier();
  const n = 20_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) if (!verifier.verify(key.raw, message, sig)) throw new Error('verify failed');
  return n / ((performance.now() - started) / 1000);
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
const server = await startServer(dir);
try {
  const keys = Array.from({ length: 64 }, keyPair);
  const bodies = Array.from({ length: REQUESTS * ROUNDS }, (_, i) => signedListSigners(keys[i % keys.length]!));
  const base = new URL(server.base);
  const signedCall = (i: number) => request(base, '/api/message', bodies[i]!);
  const unsignedCall = (i: number) => request(base, '/bench/unsigned', bodies[i]!);
  await load(2_000, unsignedCall);
  await load(2_000, signedCall);
  const unsignedRates: number[] = [];
  const signedRates: number[] = [];
  const latencies: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    unsignedRates.push((await load(REQUESTS, unsignedCall)).perSec);
    const signed = await load(REQUESTS, (i) => signedCall(round * REQUESTS + i));
    signedRates.push(signed.perSec);
    latencies.push(...signed.latencies);
    console.log(`round ${round + 1}: unsigned ${Math.round(unsignedRates[round]!)} req/s, signed ${Math.round(signed.perSec)} req/s`);
  }
  const unsignedPerSec = median(unsignedRates);
  const signedPerSec = median(signedRates);
  const verifyPerSec = verifyRate();
  const sorted = sortedCopy(latencies);
  const result = {
    signedReqPerSec: Math.round(signedPerSec),
    unsignedReqPerSec: Math.round(unsignedPerSec),
    ratio: round(signedPerSec / unsignedPerSec, 3),
    verifyPerSec: Math.round(verifyPerSec),
    p50Ms: round(percentile(sorted, 50), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    concurrency: CONCURRENCY,
    requestsPerRound: REQUESTS,
    rounds: ROUNDS,
  };
  console.log(`unsigned CBOR route (same body)  ${result.unsignedReqPerSec} req/s (median of ${ROUNDS})`);
  console.log(`signed ListSigners (CBOR)       ${result.signedReqPerSec} req/s  ratio ${result.ratio}  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms`);
  console.log(`raw node:crypto Ed25519 verify  ${result.verifyPerSec} /s (cached keys)`);
  console.log(JSON.stringify({ ...result, targets: { ratioAtLeast60Percent: result.ratio >= 0.6 } }));
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
