/**
 * The writer thread of a pipelined rebuild: runs recorded batches against one generation's tables,
 * each batch with its checkpoint in one transaction, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { parsePosition } from '../events/store/position.js';
import { ReadModelDb } from './read-model-db.js';

export interface WriterInit {
  path: string;
  projection: string;
  generation: number;
}

export type WriterRequest = { id: number; sql: string[]; ops: unknown[]; checkpoint: string; seen: number } | { id: number; close: true };
export type WriterReply = { id: number; error?: string };

const { path, projection, generation } = workerData as WriterInit;
const readModels = new ReadModelDb(path);
const statements: Statement[] = [];
/**
 * Once a batch fails, every later one is refused: batches queued behind it must not commit (and move
 * the checkpoint past the failed rows) before the main thread has heard of the failure.
 */
let failed: string | null = null;

const commit = readModels.db.transaction((ops: unknown[], checkpoint: string, seen: number) => {
  for (let i = 0; i < ops.length; ) {
    const statement = statements[ops[i] as number]!;
    const count = ops[i + 1] as number;
    statement.run(...ops.slice(i + 2, i + 2 + count));
    i += 2 + count;
  }
  readModels.saveCheckpoint(projection, generation, parsePosition(checkpoint), seen);
});

parentPort!.on('message', (request: WriterRequest) => {
  if ('close' in request) {
    readModels.close();
    parentPort!.postMessage({ id: request.id } satisfies WriterReply);
    parentPort!.close();
    return;
  }
  if (failed !== null) {
    parentPort!.postMessage({ id: request.id, error: `not written: an earlier batch failed (${failed})` } satisfies WriterReply);
    return;
  }
  try {
    for (const text of request.sql) statements.push(readModels.db.prepare(text));
    commit.immediate(request.ops, request.checkpoint, request.seen);
    parentPort!.postMessage({ id: request.id } satisfies WriterReply);
  } catch (error) {
    failed = (error as Error).message ?? String(error);
    parentPort!.postMessage({ id: request.id, error: failed } satisfies WriterReply);
  }
});
