import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../transcript/log-entry.js';
import { continuationPrompt, openObligations, unmetObligationsNotice } from './obligations.js';

const planResult = (steps: { id: string; label: string; status: string }[]): LogEntry => ({
  id: 'e1',
  seq: 1,
  actor: 'agent',
  createdAt: 1,
  event: { type: 'tool_result', toolCallId: 'c1', name: 'plan', output: { steps } },
});

describe('obligations', () => {
  it('given no plan, or a plan whose steps all settled, then nothing is owed', () => {
    expect(openObligations([])).toEqual([]);
    expect(
      openObligations([
        planResult([
          { id: 'a', label: 'A', status: 'done' },
          { id: 'b', label: 'B', status: 'failed' },
          { id: 'c', label: 'C', status: 'skipped' },
        ]),
      ]),
    ).toEqual([]);
  });

  it('given pending and running steps, then they are owed, by label, in plan order', () => {
    const log = [
      planResult([
        { id: 'a', label: 'A', status: 'running' },
        { id: 'b', label: 'B', status: 'done' },
        { id: 'c', label: 'C', status: 'pending' },
      ]),
    ];
    expect(openObligations(log)).toEqual([{ kind: 'plan', steps: ['A', 'C'] }]);
  });

  it('given labels with quotes, then the messages quote each one as JSON', () => {
    const obligations = [{ kind: 'plan' as const, steps: ['Say "hi"', 'Two'] }];
    expect(continuationPrompt(obligations)).toContain('- Plan steps not finished: "Say \\"hi\\"", "Two".');
    expect(unmetObligationsNotice(obligations)).toContain('- Plan steps neither finished nor closed: "Say \\"hi\\"", "Two".');
  });
});
