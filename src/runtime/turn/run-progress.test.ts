import { describe, expect, it } from 'vitest';
import type { Actor, LogEntry, LogPayload } from '../transcript/log-entry.js';
import { runProgress } from './run-progress.js';
import { continuationId, unmetObligationsId } from './turn-ids.js';
import type { TurnLog } from './turn-log.js';

/** A Log built as [cause, actor, event, id?] rows. */
function turnLog(rows: [string, Actor, LogPayload, string?][]): TurnLog {
  const entries: LogEntry[] = rows.map(([, actor, event, id], index) => ({ id: id ?? `e${index + 1}`, seq: index + 1, actor, createdAt: index, event }));
  return { session: null, entries, causes: new Map(rows.map(([cause], index) => [entries[index]!.id, cause])) };
}
const user = (content: string): LogPayload => ({ type: 'message', role: 'user', content });
const said = (content: string): LogPayload => ({ type: 'message', role: 'assistant', content });
const call = (id: string): LogPayload => ({ type: 'tool_call', id, name: 'plan', input: {} });
const result = (toolCallId: string): LogPayload => ({ type: 'tool_result', toolCallId, name: 'plan', output: {} });

describe('runProgress', () => {
  it('given a run with nothing in the Log yet, then it starts from the beginning', () => {
    expect(runProgress(turnLog([['action', 'user', user('hi')]]), 'r1')).toEqual({ interrupted: [], continuations: 0, ended: false, passEnded: false });
  });

  it('given calls of this run without results, then they are interrupted; answered ones and other runs’ calls are not', () => {
    const log = turnLog([
      ['action', 'user', user('hi')],
      ['r0', 'agent', call('old')],
      ['r1', 'agent', said('Working.')],
      ['r1', 'agent', call('a')],
      ['r1', 'agent', call('b')],
      ['r1', 'agent', result('a')],
    ]);
    expect(runProgress(log, 'r1')).toMatchObject({ interrupted: [{ id: 'b', name: 'plan' }], passEnded: false, lastAnswerId: 'e3' });
  });

  it('given the run’s last event is assistant text, then its pass had ended', () => {
    const log = turnLog([
      ['action', 'user', user('hi')],
      ['r1', 'agent', said('Done.')],
      ['action', 'user', user('a later message, not this run’s')],
    ]);
    expect(runProgress(log, 'r1')).toMatchObject({ passEnded: true, lastAnswerId: 'e2' });
  });

  it('given hand-backs and the final notice in the Log, then they are counted and the run is known to have ended', () => {
    const log = turnLog([
      ['r1', 'agent', said('Done.')],
      ['r1', 'system', user('again'), continuationId('r1', 1)],
      ['r1', 'agent', said('Done.')],
      ['r1', 'system', user('again'), continuationId('r1', 2)],
    ]);
    expect(runProgress(log, 'r1')).toMatchObject({ continuations: 2, ended: false, passEnded: false });
    const ended = turnLog([...log.entries.map((e): [string, Actor, LogPayload, string] => ['r1', e.actor, e.event, e.id]), ['r1', 'system', user('left'), unmetObligationsId('r1')]]);
    expect(runProgress(ended, 'r1')).toMatchObject({ continuations: 2, ended: true });
  });
});
