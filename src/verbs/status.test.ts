import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../runtime/transcript/log-entry.js';
import { VerbRegistry, type VerbContext } from './registry.js';
import { currentDescription, sessionStatusBlock, statusVerb } from './status.js';

const registry = new VerbRegistry([statusVerb]);
const withTitle = (kept?: string): VerbContext & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    sessionId: 's',
    runId: 'r',
    toolCallId: 'c',
    signal: new AbortController().signal,
    renameSession: async (title) => {
      asked.push(title);
      return kept === undefined ? { renamed: true, title } : { renamed: false, title: kept };
    },
  };
};

describe('status verb', () => {
  it('given a title and a description, when run, then the title is normalized and applied, the description trimmed', async () => {
    const context = withTitle();
    expect(await registry.run('status', { title: '  Trip\n planning ', description: ' Booking flights ' }, context)).toEqual({
      output: { title: 'Trip planning', description: 'Booking flights' },
    });
    expect(context.asked).toEqual(['Trip planning']);
  });

  it('given a session the user named, when the agent sets a title, then the user’s title stays and the output says so', async () => {
    expect(await registry.run('status', { title: 'Agent title' }, withTitle('Mine'))).toEqual({
      output: { title: 'Mine', note: 'The user named this session, so their title stays.' },
    });
  });

  it('given nothing to change or only white space, when run, then the call fails', async () => {
    expect(await registry.run('status', {}, withTitle())).toMatchObject({ error: expect.stringContaining('the input must set at least 1 field') });
    expect(await registry.run('status', { description: '   ' }, withTitle())).toEqual({ error: 'description must have some text besides white space' });
    expect(await registry.run('status', { title: '  ' }, withTitle())).toEqual({ error: 'title must have some text besides white space' });
  });

  it('given status results in the Log, then the last description set is current', () => {
    const result = (output: unknown, error?: string): LogEntry => ({
      id: String(Math.random()),
      seq: 1,
      actor: 'agent',
      createdAt: 1,
      event: { type: 'tool_result', toolCallId: 'c', name: 'status', output, ...(error ? { error } : {}) },
    });
    expect(currentDescription([])).toBeUndefined();
    expect(currentDescription([result({ description: 'one' }), result({ title: 'only a title' }), result(undefined, 'failed')])).toBe('one');
    expect(currentDescription([result({ description: 'one' }), result({ description: 'two' })])).toBe('two');
  });

  it('given values, then the block shows only those set, escaped', () => {
    expect(sessionStatusBlock({ title: undefined, description: undefined })).toBe('<session_status>\n{}\n</session_status>');
    expect(sessionStatusBlock({ title: 'a<b', description: 'c' })).toBe('<session_status>\n{"title":"a\\u003cb","description":"c"}\n</session_status>');
  });
});
