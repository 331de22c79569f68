/**
 * Ed25519 verification on worker threads. A verify (~80 µs in OpenSSL here) is most of what a signed
 * request costs beyond an unsigned one; on its own thread it runs while the request thread parses,
 * dispatches and answers other requests.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { compiledModule } from '../package-root.js';
import type { VerifyReply, VerifyRequest } from './verify-pool.thread.js';

export interface AsyncVerifier {
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

export class Ed25519VerifyPool implements AsyncVerifier {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, { resolve(ok: boolean): void; reject(error: Error): void }>();
  private nextId = 0;
  private closed = false;

  /** One worker per core beyond the request thread's, at least one. */
  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.workers = Array.from({ length: size }, () => {
      const worker = new Worker(compiledModule(import.meta.url, 'verify-pool.thread.js'));
      worker.on('message', (reply: VerifyReply) => {
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if ('error' in reply) waiter?.reject(new Error(`Ed25519 verify failed: ${reply.error}`));
        else waiter?.resolve(reply.ok);
      });
      worker.on('error', (error) => this.failAll(error));
      worker.on('exit', (code) => {
        if (!this.closed) this.failAll(new Error(`An Ed25519 verify worker exited (code ${code})`));
      });
      // Idle workers must not keep the process alive.
      worker.unref();
      return worker;
    });
  }

  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('The Ed25519 verify pool is closed'));
    const id = this.nextId++;
    const worker = this.workers[id % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, publicKey, message, signature } satisfies VerifyRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.failAll(new Error('The Ed25519 verify pool closed'));
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
