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

interface Waiter {
  resolve(ok: boolean): void;
  reject(error: Error): void;
}

/** One worker thread and the requests it has not answered yet. */
class PoolWorker {
  readonly pending = new Map<number, Waiter>();
  readonly thread: Worker;

  constructor(onExit: (worker: PoolWorker, error: Error) => void) {
    this.thread = new Worker(compiledModule(import.meta.url, 'verify-pool.thread.js'));
    this.thread.on('message', (reply: VerifyReply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) waiter?.reject(new Error(`Ed25519 verify failed: ${reply.error}`));
      else waiter?.resolve(reply.ok);
    });
    this.thread.on('error', (error) => onExit(this, error));
    this.thread.on('exit', (code) => onExit(this, new Error(`An Ed25519 verify worker exited (code ${code})`)));
    // Idle workers must not keep the process alive.
    this.thread.unref();
  }

  failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

export class Ed25519VerifyPool implements AsyncVerifier {
  private readonly workers: PoolWorker[];
  private nextId = 0;
  private closed = false;

  /** One worker per core beyond the request thread's, at least one. */
  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.workers = Array.from({ length: size }, () => this.spawn());
  }

  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('The Ed25519 verify pool is closed'));
    const id = this.nextId++;
    // The least busy worker: a slow one does not hold up requests another could answer.
    const worker = this.workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    return new Promise((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      worker.thread.postMessage({ id, publicKey, message, signature } satisfies VerifyRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }

  private spawn(): PoolWorker {
    return new PoolWorker((worker, error) => {
      // A dead worker answers nothing: fail what it held, and put a fresh one in its place.
      worker.failAll(this.closed ? new Error('The Ed25519 verify pool closed') : error);
      const index = this.workers.indexOf(worker);
      if (index < 0) return;
      if (this.closed) return;
      this.workers[index] = this.spawn();
      void worker.thread.terminate();
    });
  }
}
