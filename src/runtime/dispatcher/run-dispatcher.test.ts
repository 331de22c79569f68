/**
 * The dispatcher over a real log and runs read model, with a scripted executor: exactly-once claims
 * across dispatchers, one turn at a time per session, interactive first, lease takeover, the boot
 * sweep, cancel winning over a result, retries with backoff.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempLog, userContext } from '../../../test/support/log-fixtures.js';
import { loadConfig } from '../../config/config.js';
import { decideCancelRun, decideQueueAgentTurn } from '../../commands/runs/runs.decider.js';
import { loadRun, runStream } from '../../commands/runs/run-stream.js';
import { ProjectionService } from '../../projections/projection-service.js';
import { ReadModelDb } from '../../projections/read-model-db.js';
import { runsProjection } from '../../projections/runs.projection.js';
import type { ClaimedRun, RunExecutor, RunOutcome } from '../run-executor.js';
import { RunDispatcher } from './run-dispatcher.js';
import { SessionWriter } from '../../commands/sessions/session-writer.js';

const quiet = { log: () => {}, error: () => {} };

/** Executes by a per-run script; records what ran, when, and how often at once per session. */
class ScriptedExecutor implements RunExecutor {
  readonly calls: Array<{ run: ClaimedRun; start: number; end?: number }> = [];
  private readonly running = new Map<string, number>();
  maxPerSession = 0;
  constructor(private readonly script: (run: ClaimedRun, signal: AbortSignal, call: number) => Promise<RunOutcome>) {}

  async execute(run: ClaimedRun, signal: AbortSignal): Promise<RunOutcome> {
    const call = { run, start: Date.now() } as { run: ClaimedRun; start: number; end?: number };
    this.calls.push(call);
    const now = (this.running.get(run.sessionId) ?? 0) + 1;
    this.running.set(run.sessionId, now);
    this.maxPerSession = Math.max(this.maxPerSession, now);
    try {
      return await this.script(run, signal, this.calls.filter((c) => c.run.runId === run.runId).length);
    } finally {
      this.running.set(run.sessionId, this.running.get(run.sessionId)! - 1);
      call.end = Date.now();
    }
  }
}

const succeed = async (): Promise<RunOutcome> => ({ status: 'succeeded' });
const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const hang = (signal: AbortSignal): Promise<RunOutcome> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'failed', error: { code: 'aborted', message: 'aborted' }, retryable: false })));

describe('RunDispatcher', () => {
  let env: ReturnType<typeof tempLog>;
  let stops: Array<() => Promise<void>>;

  beforeEach(() => {
    env = tempLog();
    stops = [];
  });
  afterEach(async () => {
    for (const stop of stops.reverse()) await stop();
    await env.cleanup();
  });

  /** A dispatcher as one server process: its own data dir (node id) and read models, the shared log. */
  const startDispatcher = (executor: RunExecutor, options: { dataDir?: string; leaseMs?: number; maxRuns?: number } = {}) => {
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'seed-node-'));
    const readModels = new ReadModelDb(join(dataDir, `readmodels-${randomUUID()}.db`));
    const projections = new ProjectionService(env.log, readModels, [runsProjection], quiet);
    projections.start();
    const config = loadConfig({
      SEED_AGENTS_DATA_DIR: dataDir,
      SEED_AGENTS_RUN_LEASE_MS: String(options.leaseMs ?? 30_000),
      SEED_AGENTS_MAX_RUNS: String(options.maxRuns ?? 8),
    });
    const dispatcher = new RunDispatcher(env.log, projections, executor, config, new SessionWriter(env.log, projections));
    dispatcher.onApplicationBootstrap();
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await dispatcher.onApplicationShutdown();
      await projections.stop();
      readModels.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    };
    stops.push(stop);
    return { dispatcher, stop, dataDir };
  };

  const queue = async (sessionId: string, origin: 'user' | 'trigger' = 'user'): Promise<string> => {
    const runId = randomUUID();
    const events = decideQueueAgentTurn(null, { ownerAccountId: 'z6MkAccount', agentId: 'agent-1', sessionId, runId, origin, messageEventIds: [randomUUID()] });
    await env.log.append(runStream(runId), events, userContext, { expected: 'no_stream' });
    return runId;
  };
  const types = async (runId: string): Promise<string[]> => {
    const out: string[] = [];
    for await (const event of env.log.readStream(runStream(runId))) out.push(event.type);
    return out;
  };
  const status = async (runId: string) => (await loadRun(env.log, runId)).run!;

  it('executes every run exactly once across two dispatchers racing for them', async () => {
    const executor = new ScriptedExecutor(succeed);
    startDispatcher(executor);
    startDispatcher(executor);
    const runs = await Promise.all(Array.from({ length: 30 }, (_, i) => queue(`session-${i % 10}`)));
    await until(async () => (await Promise.all(runs.map(status))).every((run) => run.status === 'succeeded'));
    expect(executor.calls.map((c) => c.run.runId).sort()).toEqual([...runs].sort());
    for (const runId of runs) expect(await types(runId)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunSucceeded']);
  });

  it('runs one turn at a time per session, in queue order, while other sessions go on', async () => {
    const executor = new ScriptedExecutor(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { status: 'succeeded' };
    });
    startDispatcher(executor);
    startDispatcher(executor);
    const a = [await queue('a'), await queue('a'), await queue('a')];
    const b = await queue('b');
    await until(async () => (await Promise.all([...a, b].map(status))).every((run) => run.status === 'succeeded'));
    expect(executor.maxPerSession).toBe(1);
    const order = executor.calls.filter((c) => c.run.sessionId === 'a');
    expect(order.map((c) => c.run.runId)).toEqual(a);
    for (let i = 1; i < order.length; i++) expect(order[i]!.start).toBeGreaterThanOrEqual(order[i - 1]!.end!);
    const bCall = executor.calls.find((c) => c.run.runId === b)!;
    expect(bCall.start).toBeLessThan(order[order.length - 1]!.start);
  });

  it('claims interactive runs before background ones queued earlier', async () => {
    const background = await queue('s1', 'trigger');
    const interactive = await queue('s2', 'user');
    const executor = new ScriptedExecutor(succeed);
    startDispatcher(executor, { maxRuns: 1 });
    await until(async () => (await status(background)).status === 'succeeded');
    expect(executor.calls.map((c) => c.run.runId)).toEqual([interactive, background]);
    expect(executor.calls[0]!.run.priority).toBe('interactive');
  });

  it('takes over a run whose process stopped renewing its lease, counting an attempt', async () => {
    const first = new ScriptedExecutor((_, signal) => hang(signal));
    const dead = startDispatcher(first, { leaseMs: 1_000 });
    const runId = await queue('s');
    await until(() => first.calls.length === 1);
    // The process is gone: no renewals, no outcome (shutting down abandons the run).
    await dead.stop();
    expect((await status(runId)).status).toBe('running');
    const second = new ScriptedExecutor(succeed);
    startDispatcher(second, { leaseMs: 1_000 });
    await until(async () => (await status(runId)).status === 'succeeded');
    expect(second.calls[0]!.run.attempt).toBe(2);
    expect(await types(runId)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunClaimed', 'RunStarted', 'RunSucceeded']);
  });

  it('takes its own runs up again at restart without counting an attempt, long before the lease lapses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seed-node-'));
    try {
      const before = new ScriptedExecutor((_, signal) => hang(signal));
      const first = startDispatcher(before, { dataDir });
      const runId = await queue('s');
      await until(() => before.calls.length === 1);
      await first.stop();
      const after = new ScriptedExecutor(succeed);
      const restartedAt = Date.now();
      startDispatcher(after, { dataDir });
      await until(async () => (await status(runId)).status === 'succeeded');
      expect(Date.now() - restartedAt).toBeLessThan(5_000);
      expect(after.calls[0]!.run.attempt).toBe(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('lets a cancel that lands while the run executes win over its result', async () => {
    let sawAbort = false;
    const executor = new ScriptedExecutor(async (_, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      sawAbort = true;
      return { status: 'succeeded' };
    });
    startDispatcher(executor);
    const runId = await queue('s');
    await until(() => executor.calls.length === 1);
    const { run, revision } = await loadRun(env.log, runId);
    await env.log.append(runStream(runId), decideCancelRun(run, 'canceled'), userContext, { expected: revision });
    await until(() => sawAbort);
    await until(() => executor.calls[0]!.end !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await types(runId)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunCanceled']);
  });

  it('retries a retryable failure after a backoff and fails a non-retryable one once', async () => {
    const executor = new ScriptedExecutor(async (run, _, call) => {
      if (run.sessionId === 'flaky' && call === 1) return { status: 'failed', error: { code: 'provider_error', message: '502' }, retryable: true };
      if (run.sessionId === 'broken') return { status: 'failed', error: { code: 'provider_auth', message: '401' }, retryable: false };
      return { status: 'succeeded' };
    });
    startDispatcher(executor);
    const flaky = await queue('flaky');
    const broken = await queue('broken');
    await until(async () => (await status(flaky)).status === 'succeeded' && (await status(broken)).status === 'failed');
    expect(await types(flaky)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunAttemptFailed', 'RunClaimed', 'RunStarted', 'RunSucceeded']);
    const retried = executor.calls.filter((c) => c.run.runId === flaky);
    // The first retry waits between half and all of the 1 s base delay.
    expect(retried[1]!.start - retried[0]!.end!).toBeGreaterThanOrEqual(450);
    expect(retried[1]!.run.attempt).toBe(2);
    expect(await types(broken)).toEqual(['RunQueued', 'RunClaimed', 'RunStarted', 'RunFailed']);
    expect((await status(broken)).error).toEqual({ code: 'provider_auth', message: '401' });
  });
});
