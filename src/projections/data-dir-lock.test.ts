import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledModule } from '../package-root.js';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';

describe('lockDataDir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one holder in at a time and names it to the next', () => {
    const lock = lockDataDir(dir, 'seed-agents serve');
    expect(() => lockDataDir(dir, 'seed-agents rebuild')).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir, 'seed-agents rebuild')).toThrow(
      new RegExp(`seed-agents serve \\(pid ${process.pid}, since .*\\) is running the projections of`),
    );
    lock.release();
    lockDataDir(dir, 'seed-agents rebuild').release();
  });

  it('is not blocked by holder information left behind, even naming this very pid', () => {
    // What a SIGKILLed server leaves: the note, but no lock. A restarted server may get the same pid.
    writeFileSync(join(dir, 'projections.lock.json'), JSON.stringify({ pid: process.pid, holder: 'seed-agents serve', since: 'then' }));
    lockDataDir(dir, 'seed-agents serve').release();
  });

  it('is free again the moment its holder is SIGKILLed', async () => {
    const script = compiledModule(import.meta.url, 'data-dir-lock.js');
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', `import { lockDataDir } from ${JSON.stringify(script.href)}; lockDataDir(${JSON.stringify(dir)}, 'child'); console.log('locked'); setInterval(() => {}, 1000);`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    expect(() => lockDataDir(dir, 'parent')).toThrow(/child \(pid \d+/);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    lockDataDir(dir, 'parent').release();
  });
});
