/**
 * 10,000 malformed bodies: each gets a 4xx with a message — never a 500, never a crash — and the
 * server still answers a valid request afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode, encode } from '@ipld/dag-cbor';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, post, signedBody, startTestServer } from './signed.js';

const CASES = 10_000;

/** A small deterministic PRNG, so a failing case can be reproduced from its index. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

function randomBytes(random: () => number, length: number): Uint8Array {
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

function randomValue(random: () => number, depth = 0): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 5 : 8));
  switch (pick) {
    case 0: return Math.floor(random() * 2 ** 40) - 2 ** 39;
    case 1: return 'x'.repeat(Math.floor(random() * 40));
    case 2: return random() < 0.5;
    case 3: return null;
    case 4: return randomBytes(random, Math.floor(random() * 70));
    case 5: return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (const key of ['type', 'signer', 'sig', 'account', 'action', 'protocol', '_', 'ts', 'extra']) {
        if (random() < 0.4) out[key] = randomValue(random, depth + 1);
      }
      return out;
    }
  }
}

/** CBOR with a tag other than 42 (the only one DAG-CBOR allows), or 42 over garbage. */
function tagged(random: () => number): Uint8Array {
  const tag = random() < 0.5 ? 42 : Math.floor(random() * 23);
  return Uint8Array.from([0xd8, tag, 0x45, ...randomBytes(random, 5)]);
}

function deeplyNested(depth: number): Uint8Array {
  return Uint8Array.from([...new Array(depth).fill(0x81), 0x00]);
}

describe('gateway fuzz', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let valid: Uint8Array;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-fuzz-'));
    ({ app, base } = await startTestServer(dir));
    valid = await signedBody(newKey(), { _: 'ListSigners' });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function malformed(index: number): Uint8Array {
    const random = rng(index + 1);
    switch (index % 8) {
      case 0: return randomBytes(random, Math.floor(random() * 200));
      case 1: return valid.subarray(0, Math.floor(random() * valid.length));
      case 2: return encode(randomValue(random) as never);
      case 3: return deeplyNested(100 + Math.floor(random() * 20_000));
      case 4: {
        const body = Uint8Array.from(valid);
        const at = Math.floor(random() * body.length);
        body[at] = body[at]! ^ (1 + Math.floor(random() * 255));
        return body;
      }
      case 5: return encode({ type: 'AgentsAction', signer: randomBytes(random, 34), sig: randomBytes(random, 64), account: randomBytes(random, 34), action: { _: 'x'.repeat(Math.floor(random() * 100_000)), ts: Date.now() } });
      case 6: return encode({ type: 'AgentsAction', huge: new Uint8Array(Math.floor(random() * 2_000_000)) });
      default: return tagged(random);
    }
  }

  it(`answers ${CASES} malformed bodies with a 4xx and a message, then a valid request`, { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < CASES; index = next++) {
        const response = await post(base, malformed(index));
        let message: unknown;
        try {
          message = (decode(response.bytes) as { message?: unknown }).message;
        } catch (error) {
          message = undefined;
          failures.push(`case ${index}: undecodable answer (${(error as Error).message})`);
        }
        if (response.status < 400 || response.status >= 500 || typeof message !== 'string' || !message) {
          failures.push(`case ${index}: status ${response.status}, message ${String(message)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures.slice(0, 20)).toEqual([]);
    const ok = await post(base, await signedBody(newKey(), { _: 'ListSigners' }));
    expect(ok.status).toBe(200);
  });
});
