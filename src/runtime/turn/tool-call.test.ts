import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../events/store/types.js';
import { VerbRegistry, type Verb, type VerbContext } from '../../verbs/registry.js';
import { MAX_TOOL_RESULT_BYTES } from '../transcript/tool-result-bounds.js';
import { runToolCall, toolCallOf } from './tool-call.js';

const context: VerbContext = {
  sessionId: 's',
  runId: 'r',
  toolCallId: 'c',
  signal: new AbortController().signal,
  renameSession: async (title) => ({ renamed: true, title }),
};
const big = (output: JsonValue): Verb<Record<string, never>> => ({ name: 'big', description: 'Big.', input: { type: 'object' }, execute: async () => output });

describe('toolCallOf', () => {
  it('given a fresh id and JSON arguments, then both are kept', () => {
    expect(toolCallOf({ id: 'call_1', name: 'plan', arguments: '{"steps":[]}' }, new Set())).toEqual({ id: 'call_1', name: 'plan', input: { steps: [] } });
  });

  it('given an id already in the session, or none, then a fresh one is minted and remembered', () => {
    const taken = new Set(['call_0']);
    const repeated = toolCallOf({ id: 'call_0', name: 'plan', arguments: '{}' }, taken);
    const missing = toolCallOf({ id: '', name: 'plan', arguments: '{}' }, taken);
    expect(repeated.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(missing.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set([repeated.id, missing.id]).size).toBe(2);
    expect(taken).toEqual(new Set(['call_0', repeated.id, missing.id]));
  });

  it('given no argument text, then the input is an empty object; given broken JSON, then the text is kept with the reason', () => {
    expect(toolCallOf({ id: 'a', name: 'status', arguments: '  ' }, new Set()).input).toEqual({});
    const broken = toolCallOf({ id: 'b', name: 'plan', arguments: '{"steps": [' }, new Set());
    expect(broken).toMatchObject({ input: '{"steps": [', malformed: expect.any(String) });
  });

  it('given a name the Log cannot hold, then it is cut to 128 characters, or named unnamed when empty', () => {
    expect(toolCallOf({ id: 'a', name: 'x'.repeat(200), arguments: '{}' }, new Set()).name).toHaveLength(128);
    expect(toolCallOf({ id: 'b', name: '', arguments: '{}' }, new Set()).name).toBe('unnamed');
  });
});

describe('runToolCall', () => {
  it('given malformed arguments, then the verb does not run and the error says what to send', async () => {
    const outcome = await runToolCall(new VerbRegistry([]), { id: 'a', name: 'plan', input: '{', malformed: 'Unexpected end of JSON input' }, context);
    expect(outcome).toEqual({ error: "The arguments are not valid JSON (Unexpected end of JSON input); send one JSON object matching plan's input schema" });
  });

  it('given an output over 256 KiB, then the Log keeps it as truncated text within the cap; smaller outputs stay as they are', async () => {
    const huge = { text: 'é'.repeat(MAX_TOOL_RESULT_BYTES) };
    const outcome = await runToolCall(new VerbRegistry([big(huge)]), { id: 'a', name: 'big', input: {} }, context);
    const output = (outcome as { output: string }).output;
    expect(typeof output).toBe('string');
    expect(Buffer.byteLength(output, 'utf8')).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    expect(output.endsWith('\n[truncated]')).toBe(true);
    expect(await runToolCall(new VerbRegistry([big({ ok: true })]), { id: 'a', name: 'big', input: {} }, context)).toEqual({ output: { ok: true } });
  });
});
