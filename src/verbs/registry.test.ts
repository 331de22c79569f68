import { describe, expect, it } from 'vitest';
import { VerbRegistry, type Verb, type VerbContext } from './registry.js';

const context = (signal: AbortSignal = new AbortController().signal): VerbContext => ({
  sessionId: 's',
  runId: 'r',
  toolCallId: 'c',
  signal,
  renameSession: async (title) => ({ renamed: true, title }),
});

const echo: Verb<{ text: string }> = {
  name: 'echo',
  description: 'Says it back.',
  input: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' }, mode: { enum: ['a', 'b'] } } },
  execute: async ({ text }) => ({ said: text }),
};
const failing: Verb<Record<string, never>> = {
  name: 'fail',
  description: 'Always fails.',
  input: { type: 'object' },
  execute: async () => {
    throw new Error('Nothing here');
  },
};

describe('VerbRegistry', () => {
  const registry = new VerbRegistry([echo, failing]);

  it('given verbs, when the provider tools are built, then each is a function with its description and schema, in order', () => {
    expect(registry.providerTools()).toEqual([
      { type: 'function', function: { name: 'echo', description: 'Says it back.', parameters: echo.input } },
      { type: 'function', function: { name: 'fail', description: 'Always fails.', parameters: { type: 'object' } } },
    ]);
  });

  it('given valid input, when run, then the output is the verb’s', async () => {
    expect(await registry.run('echo', { text: 'hi' }, context())).toEqual({ output: { said: 'hi' } });
  });

  it('given an unknown name, when run, then the error lists the tools', async () => {
    expect(await registry.run('teleport', {}, context())).toEqual({ error: 'There is no tool named "teleport"; the tools are echo, fail' });
  });

  it('given input the schema rejects, when run, then every problem is named and the contract is returned', async () => {
    const outcome = await registry.run('echo', { mode: 'c', extra: 1 }, context());
    expect(outcome).toEqual({
      error:
        'The input does not match echo\'s schema: the input must have required property \'text\'; the input has unknown field "extra"; ' +
        `/mode must be one of a, b. Call it again with input matching ${JSON.stringify(echo.input)}`,
    });
  });

  it('given a verb that throws, when run, then its message is the error', async () => {
    expect(await registry.run('fail', {}, context())).toEqual({ error: 'Nothing here' });
  });

  it('given an aborted turn, when the verb throws, then the abort propagates instead of becoming a result', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(registry.run('fail', {}, context(controller.signal))).rejects.toThrow('Nothing here');
  });

  it('given the same name twice, when constructed, then it refuses', () => {
    expect(() => new VerbRegistry([echo, echo])).toThrow('Verb "echo" is registered twice');
  });
});
