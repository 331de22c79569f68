/** The run deciders, given events / when command / then events. */
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/event-log.js';
import { evolveRun, type RunState } from './run-state.js';
import { MAX_RUN_ATTEMPTS, decideCancelRun, decideClaim, decideOutcome, decideQueueAgentTurn, decideRenewLease, decideStart, retryDelay } from './runs.decider.js';

const given = (...events: NewEvent[]): RunState | null =>
  events.reduce<RunState | null>((run, event, i) => evolveRun(run, { ...event, metadata: { at: 1_000 + i } }, 'r1'), null);
const queued = decideQueueAgentTurn(null, { ownerAccountId: 'acc', agentId: 'ag', sessionId: 's', runId: 'r1', origin: 'user', messageEventIds: ['m1'] })[0]!;
const claimed = (owner: string, leaseUntil: number, attempt = 1): NewEvent => ({ type: 'RunClaimed', data: { owner, leaseUntil, attempt } });
const started = (owner: string): NewEvent => ({ type: 'RunStarted', data: { owner } });

describe('run deciders', () => {
  it('queues a turn once: a rerun of the same request queues nothing', () => {
    expect(queued).toMatchObject({ type: 'RunQueued', data: { kind: 'agent', rootRunId: 'r1', depth: 0, priority: 'interactive', messageEventIds: ['m1'] } });
    expect(decideQueueAgentTurn(given(queued), { ownerAccountId: 'acc', agentId: 'ag', sessionId: 's', runId: 'r1', origin: 'user', messageEventIds: ['m1'] })).toEqual([]);
  });

  it('claims a due queued run with the next attempt and a lease; not before its backoff ends', () => {
    expect(decideClaim(given(queued), { owner: 'A', now: 5_000, leaseMs: 30_000 })).toEqual([claimed('A', 35_000, 1)]);
    const backingOff = given(queued, claimed('A', 9_000), { type: 'RunAttemptFailed', data: { error: { code: 'x', message: 'y' }, attempt: 1, retryAt: 8_000 } });
    expect(decideClaim(backingOff, { owner: 'B', now: 7_999, leaseMs: 1 })).toEqual([]);
    expect(decideClaim(backingOff, { owner: 'B', now: 8_000, leaseMs: 1 })).toEqual([claimed('B', 8_001, 2)]);
  });

  it('leaves a held lease alone, takes a lapsed one over counting an attempt, and its own back without', () => {
    const running = given(queued, claimed('A', 10_000), started('A'));
    expect(decideClaim(running, { owner: 'B', now: 10_000, leaseMs: 5 })).toEqual([]);
    expect(decideClaim(running, { owner: 'B', now: 10_001, leaseMs: 5 })).toEqual([claimed('B', 10_006, 2)]);
    expect(decideClaim(running, { owner: 'A', now: 2_000, leaseMs: 5 })).toEqual([claimed('A', 2_005, 1)]);
  });

  it('fails a run whose process kept dying once its attempts are spent', () => {
    const worn = given(queued, claimed('A', 10, MAX_RUN_ATTEMPTS));
    expect(decideClaim(worn, { owner: 'B', now: 11, leaseMs: 5 })).toEqual([
      { type: 'RunFailed', data: { error: { code: 'lease_lost', message: expect.stringContaining(`interrupted ${MAX_RUN_ATTEMPTS} times`) }, attempt: MAX_RUN_ATTEMPTS } },
    ]);
  });

  it('starts and renews only for the lease holder', () => {
    const run = given(queued, claimed('A', 10));
    expect(decideStart(run, 'B')).toEqual([]);
    expect(decideStart(run, 'A')).toEqual([started('A')]);
    expect(decideRenewLease(given(queued, claimed('A', 10), claimed('B', 50, 2)), { owner: 'A', now: 20, leaseMs: 5 })).toEqual([]);
    expect(decideRenewLease(run, { owner: 'A', now: 20, leaseMs: 5 })).toEqual([{ type: 'RunLeaseRenewed', data: { owner: 'A', leaseUntil: 25 } }]);
  });

  it('records the holder’s outcome; a cancel or a takeover that came first wins', () => {
    const running = given(queued, claimed('A', 10), started('A'));
    const success = { status: 'succeeded', assistantEventId: 'e9' } as const;
    expect(decideOutcome(running, { owner: 'A', outcome: success, now: 1, jitter: 0 })).toEqual([{ type: 'RunSucceeded', data: { assistantEventId: 'e9' } }]);
    const canceled = given(queued, claimed('A', 10), started('A'), ...decideCancelRun(running, 'session-stopped'));
    expect(decideOutcome(canceled, { owner: 'A', outcome: success, now: 1, jitter: 0 })).toEqual([]);
    const takenOver = given(queued, claimed('A', 10), started('A'), claimed('B', 99, 2));
    expect(decideOutcome(takenOver, { owner: 'A', outcome: success, now: 1, jitter: 0 })).toEqual([]);
  });

  it('retries a retryable failure with a growing, capped, jittered delay, and fails the rest once', () => {
    const failure = { status: 'failed', error: { code: 'provider_error', message: '502' }, retryable: true } as const;
    const running = given(queued, claimed('A', 10), started('A'));
    expect(decideOutcome(running, { owner: 'A', outcome: failure, now: 100, jitter: 0 })).toEqual([
      { type: 'RunAttemptFailed', data: { error: failure.error, attempt: 1, retryAt: 600 } },
    ]);
    expect([retryDelay(1, 0), retryDelay(1, 0.999), retryDelay(3, 1), retryDelay(20, 1)]).toEqual([500, 1_000, 4_000, 60_000]);
    const last = given(queued, claimed('A', 10, MAX_RUN_ATTEMPTS), started('A'));
    expect(decideOutcome(last, { owner: 'A', outcome: failure, now: 100, jitter: 0 })[0]!.type).toBe('RunFailed');
    expect(decideOutcome(running, { owner: 'A', outcome: { ...failure, retryable: false }, now: 100, jitter: 0 })[0]!.type).toBe('RunFailed');
  });

  it('cancels a live run once and never a finished one', () => {
    expect(decideCancelRun(given(queued), 'canceled')).toEqual([{ type: 'RunCanceled', data: { reason: 'canceled' } }]);
    expect(decideCancelRun(given(queued, claimed('A', 1), { type: 'RunSucceeded', data: {} }), 'canceled')).toEqual([]);
    expect(decideCancelRun(null, 'canceled')).toEqual([]);
  });
});
