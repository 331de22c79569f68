/** The main-thread side of a pipelined rebuild's writer thread (rebuild-writer.thread.ts). */
import { Worker } from 'node:worker_threads';
import { compiledModule } from '../package-root.js';
import { serializePosition, type Position } from '../events/store/position.js';
import type { WriterInit, WriterReply, WriterRequest } from './rebuild-writer.thread.js';

export class RebuildWriter {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private failure: Error | null = null;

  constructor(init: WriterInit) {
    this.worker = new Worker(compiledModule(import.meta.url, 'rebuild-writer.thread.js'), { workerData: init });
    this.worker.on('message', (reply: WriterReply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.error) waiter?.reject(new Error(`Rebuild writer for ${init.projection}: ${reply.error}`));
      else waiter?.resolve();
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => {
      if (this.pending.size) this.failAll(new Error(`Rebuild writer for ${init.projection} exited (code ${code})`));
    });
  }

  /** Resolves once the batch's rows and checkpoint have committed. */
  commit(batch: { sql: string[]; ops: unknown[] }, checkpoint: Position, seen: number): Promise<void> {
    return this.send({ id: this.nextId++, ...batch, checkpoint: serializePosition(checkpoint), seen });
  }

  /** Waits for every batch sent so far, then ends the thread. */
  async close(): Promise<void> {
    await this.send({ id: this.nextId++, close: true });
    await this.worker.terminate();
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private send(request: WriterRequest): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }

  private failAll(error: Error): void {
    this.failure = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
