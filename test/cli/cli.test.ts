/** The seed-agents command line, run as a user would: the compiled bin against a data directory. */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/event-log.js';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import { lockDataDir } from '../../src/projections/data-dir-lock.js';
import { ReadModelDb } from '../../src/projections/read-model-db.js';
import { sessionViewProjection } from '../../src/projections/session-view.projection.js';
import { userContext, userMessages } from '../support/log-fixtures.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

describe('seed-agents CLI', () => {
  let dir: string;
  let store: SqliteEventStore;
  let log: EventLog;
  const env = () => ({ ...process.env, SEED_AGENTS_DATA_DIR: dir });
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env: env(), encoding: 'utf8' });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-cli-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    log = new EventLog(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints usage, and refuses unknown commands and flags with exit code 2', () => {
    expect(cli('help').stdout).toMatch(/Usage: seed-agents <command>[\s\S]*rebuild[\s\S]*tail[\s\S]*export/);
    const unknown = cli('frobnicate');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"; commands are: serve, rebuild, tail, export/);
    const badFlag = cli('export', '--nope');
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toMatch(/export: Unknown option '--nope'/);
    expect(cli('export', '--after', 'xyz').stderr).toMatch(/--after: Invalid position "xyz"/);
  });

  it('exports NDJSON and resumes after the last complete line without repeats or gaps', async () => {
    await log.append('session-a', userMessages(5), userContext);
    await store.append('agent-x', [{ type: 'AgentThing', data: { n: 1 } }]);
    const out = join(dir, 'export.ndjson');
    expect(cli('export', '--out', out).status).toBe(0);
    const first = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(first.map((e) => e.type)).toEqual(['message', 'message', 'message', 'message', 'message', 'AgentThing']);
    expect(first[0]).toMatchObject({ position: '1', stream: 'session-a', revision: 0, metadata: { actor: 'user', seq: 1, v: 2 } });

    await log.append('session-a', userMessages(3, 6), userContext);
    // A crash mid-line leaves a partial record: resume drops it and continues after the last whole one.
    appendFileSync(out, '{"position":"7","stre');
    const resumed = cli('export', '--out', out, '--resume');
    expect(resumed.status).toBe(0);
    expect(resumed.stderr).toMatch(/exported 3 events/);
    const all = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(all.map((e) => e.position)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);

    const sessionsOnly = cli('export', '--category', 'session', '--after', '5');
    expect(sessionsOnly.stdout.trim().split('\n').map((l) => JSON.parse(l).position)).toEqual(['7', '8', '9']);
  });

  it('tails events live, filtered by category', async () => {
    await log.append('session-a', userMessages(2), userContext);
    const child = spawn(process.execPath, [BIN, 'tail', '--from', 'start', '--category', 'session', '--json'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: { type: string; stream: string }[] = [];
    const done = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(JSON.parse(line));
        if (lines.length === 4) resolve();
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    await store.append('agent-x', [{ type: 'Ignored', data: {} }]);
    await log.append('session-b', userMessages(2), userContext);
    await done;
    child.kill('SIGINT');
    expect(lines.map((l) => l.stream)).toEqual(['session-a', 'session-a', 'session-b', 'session-b']);
  });

  it('rebuilds a projection with a progress report, and refuses while a server holds the data dir', async () => {
    for (let i = 0; i < 20; i++) await log.append(`session-${i}`, userMessages(50), userContext);
    const result = cli('rebuild', 'session_view');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/session_view: rebuilt from 1,000 events in [\d.]+ s \([\d,]+ events\/s\)/);
    expect(result.stderr).toMatch(/session_view \[#+\] 100\.0%/);
    const readModels = new ReadModelDb(join(dir, 'readmodels.db'));
    const [gen] = readModels.generations('session_view');
    expect(gen).toMatchObject({ state: 'serving', version: sessionViewProjection.version });
    const rows = readModels.db
      .prepare(`SELECT COUNT(*) AS n, SUM(messages) AS messages FROM p_session_view_g${gen!.generation}_sessions`)
      .get();
    readModels.close();
    expect(rows).toEqual({ n: 20, messages: 1000 });

    expect(cli('rebuild', 'nope').stderr).toMatch(/unknown projection nope; projections are: session_view/);
    const server = lockDataDir(dir, 'seed-agents serve');
    const locked = cli('rebuild');
    server.release();
    expect(locked.status).toBe(2);
    expect(locked.stderr).toMatch(/seed-agents serve \(pid \d+, since .*\) is running the projections of .*; stop it first/);
  });
});
