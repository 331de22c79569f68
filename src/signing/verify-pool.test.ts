import { sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newKey } from '../../test/support/ed25519-keys.js';
import { publicKeyOfPrincipal } from '../protocol/principal.js';
import { Ed25519VerifyPool } from './verify-pool.js';

describe('Ed25519VerifyPool', () => {
  let pool: Ed25519VerifyPool;
  beforeEach(() => {
    pool = new Ed25519VerifyPool(2);
  });
  afterEach(() => pool.close());

  it('verifies on worker threads exactly as node:crypto does, many in flight at once', async () => {
    const key = newKey();
    const publicKey = publicKeyOfPrincipal(key.principal);
    const messages = Array.from({ length: 50 }, (_, i) => Buffer.from(`message ${i}`));
    const signatures = messages.map((m) => sign(null, m, key.privateKey));
    const results = await Promise.all(
      messages.map((m, i) => pool.verify(publicKey, m, i % 5 === 0 ? signatures[(i + 1) % 50]! : signatures[i]!)),
    );
    expect(results).toEqual(messages.map((_, i) => i % 5 !== 0));
  });

  it('replaces a worker that dies, failing only what it held', async () => {
    const key = newKey();
    const publicKey = publicKeyOfPrincipal(key.principal);
    const message = Buffer.from('after a crash');
    const signature = sign(null, message, key.privateKey);
    const workers = (pool as unknown as { workers: { thread: import('node:worker_threads').Worker }[] }).workers;
    const dying = workers[0]!.thread;
    await dying.terminate();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workers[0]!.thread).not.toBe(dying);
    const results = await Promise.all(Array.from({ length: 6 }, () => pool.verify(publicKey, message, signature)));
    expect(results).toEqual([true, true, true, true, true, true]);
  });

  it('reports a malformed key as an error, and refuses work once closed', async () => {
    await expect(pool.verify(new Uint8Array(31), new Uint8Array(1), new Uint8Array(64))).rejects.toThrow(
      /Ed25519 verify failed: An Ed25519 public key is 32 bytes, got 31/,
    );
    await pool.close();
    await expect(pool.verify(new Uint8Array(32), new Uint8Array(1), new Uint8Array(64))).rejects.toThrow(/closed/);
  });
});
