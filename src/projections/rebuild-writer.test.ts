import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { position } from '../events/store/position.js';
import type { Projection } from './projection.js';
import { ReadModelDb } from './read-model-db.js';
import { RebuildWriter } from './rebuild-writer.js';
import { RecordingTx } from './recording-tx.js';
import { GenerationSql } from './table-names.js';

const refusesThree: Projection = {
  name: 'numbers',
  version: 1,
  eventTypes: [],
  writeOnly: true,
  tables: { n: 'value INTEGER PRIMARY KEY CHECK (value != 3)' },
  apply: () => {},
};

describe('RebuildWriter', () => {
  let dir: string;
  let readModels: ReadModelDb;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-writer-'));
    readModels = new ReadModelDb(join(dir, 'readmodels.db'));
  });
  afterEach(() => {
    readModels.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits batches in order with their checkpoints, and after a failure refuses every later batch', async () => {
    const generation = readModels.createGeneration(refusesThree, 'building');
    const tx = new RecordingTx(new GenerationSql(readModels.db, 'numbers', generation, ['n']));
    const writer = new RebuildWriter({ path: readModels.path, projection: 'numbers', generation });
    const batch = (values: number[]) => {
      for (const v of values) tx.run('INSERT INTO {n} (value) VALUES (?)', v);
      return tx.take();
    };
    // All three are queued before the first is written: the third must not commit after the second fails.
    const results = await Promise.allSettled([
      writer.commit(batch([1, 2]), position(2n), 2),
      writer.commit(batch([3, 4]), position(4n), 2),
      writer.commit(batch([5, 6]), position(6n), 2),
    ]);
    await writer.terminate();
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint failed/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/not written: an earlier batch failed/);
    expect(readModels.generations('numbers')[0]).toMatchObject({ checkpoint: position(2n), events: 2 });
    expect(readModels.db.prepare(`SELECT value FROM p_numbers_g${generation}_n ORDER BY value`).all()).toEqual([
      { value: 1 },
      { value: 2 },
    ]);
  });
});
