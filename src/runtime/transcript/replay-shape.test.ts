import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { Actor, LogEntry, LogPayload } from './log-entry.js';
import { replayTranscript } from './replay.js';

/**
 * The shape chat completions accepts: every assistant tool call is answered by exactly one tool
 * message before the next non-tool message, and every tool message answers such a call.
 */
function shapeViolations(messages: readonly ChatCompletionMessageParam[]): string[] {
  const violations: string[] = [];
  let open = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) violations.push(`#${index}: tool message ${message.tool_call_id} answers no open call`);
      return;
    }
    if (open.size) violations.push(`#${index}: calls ${[...open].join(', ')} left unanswered`);
    open = new Set();
    if (message.role !== 'assistant') return;
    const ids = (message.tool_calls ?? []).map((c) => c.id);
    if (new Set(ids).size !== ids.length) violations.push(`#${index}: duplicate call ids`);
    if (!ids.length && (message.content === null || message.content === undefined)) violations.push(`#${index}: empty assistant message`);
    open = new Set(ids);
  });
  if (open.size) violations.push(`end: calls ${[...open].join(', ')} left unanswered`);
  return violations;
}

/** mulberry32: small, seeded, good enough to explore Log shapes reproducibly. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A plausible Log: user messages, agent turns of text and tool batches whose results arrive, fail,
 * arrive late (after later messages), go missing, repeat, or come without a call; user actions;
 * stray non-user results for user calls; errors.
 */
function plausibleLog(seed: number): LogEntry[] {
  const next = random(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const log: LogEntry[] = [];
  const append = (actor: Actor, event: LogPayload) => log.push({ id: `e${log.length + 1}`, seq: log.length + 1, actor, createdAt: log.length, event });
  const late: string[] = [];
  let ids = 0;
  const id = () => `call_${++ids}`;

  for (let step = 0, steps = 5 + Math.floor(next() * 40); step < steps; step++) {
    switch (pick(['user', 'turn', 'turn', 'user-action', 'late', 'orphan', 'error'] as const)) {
      case 'user':
        append('user', { type: 'message', role: 'user', content: 'hi', ...(next() < 0.3 ? { contextLines: ['Open: hm://x'] } : {}) });
        break;
      case 'turn': {
        if (next() < 0.7) append('agent', { type: 'message', role: 'assistant', content: pick(['Sure.', 'Done.', '   ']) });
        const calls = Array.from({ length: Math.floor(next() * 4) }, id);
        for (const callId of calls) append('agent', { type: 'tool_call', id: callId, name: 'read', input: next() < 0.2 ? 'oops' : { q: callId } });
        if (next() < 0.1 && calls.length) append('agent', { type: 'tool_call', id: calls[0]!, name: 'read', input: {} });
        for (const callId of calls) {
          const fate = next();
          if (fate < 0.55) append('agent', { type: 'tool_result', toolCallId: callId, name: 'read', output: { ok: callId } });
          else if (fate < 0.7) append('agent', { type: 'tool_result', toolCallId: callId, name: 'read', error: 'failed' });
          else if (fate < 0.85) late.push(callId);
          else if (fate < 0.9) {
            append('agent', { type: 'tool_result', toolCallId: callId, name: 'read', output: 1 });
            append('agent', { type: 'tool_result', toolCallId: callId, name: 'read', output: 2 });
          }
        }
        break;
      }
      case 'user-action': {
        const callId = id();
        append('user', { type: 'tool_call', id: callId, name: 'read', input: { address: '~/memory/a' } });
        if (next() < 0.8) append(next() < 0.2 ? 'system' : 'user', { type: 'tool_result', toolCallId: callId, name: 'read', output: 'a' });
        break;
      }
      case 'late':
        if (late.length) append('agent', { type: 'tool_result', toolCallId: late.shift()!, name: 'delegate', output: { status: 'succeeded' } });
        break;
      case 'orphan':
        append('agent', { type: 'tool_result', toolCallId: next() < 0.5 ? id() : 'call_1', name: 'write', output: {} });
        break;
      case 'error':
        append('system', { type: 'error', message: 'provider 500' });
        break;
    }
  }
  return log;
}

describe('replayTranscript output shape', () => {
  it('given hand-made broken Logs, when replayed, then the checker finds nothing wrong', () => {
    const call = (id: string): LogEntry => ({ id, seq: 0, actor: 'agent', createdAt: 0, event: { type: 'tool_call', id, name: 'read', input: {} } });
    const result = (toolCallId: string): LogEntry => ({ id: `r${toolCallId}`, seq: 0, actor: 'agent', createdAt: 0, event: { type: 'tool_result', toolCallId, name: 'read', output: 1 } });
    for (const log of [[call('a')], [result('a')], [result('a'), call('a')], [call('a'), call('b'), result('b')], [result('a'), result('a')]]) {
      expect(shapeViolations(replayTranscript(log))).toEqual([]);
    }
  });

  it('given the checker, when fed broken shapes, then it reports them', () => {
    expect(shapeViolations([{ role: 'tool', tool_call_id: 'x', content: '' }])).toHaveLength(1);
    expect(
      shapeViolations([
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'read', arguments: '{}' } }] },
        { role: 'user', content: 'hi' },
      ]),
    ).toHaveLength(1);
  });

  it('given 2,000 seeded plausible Logs, when replayed, then every one has a valid chat completions shape', () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const messages = replayTranscript(plausibleLog(seed), { systemPrompt: 'sys', ...(seed % 3 ? {} : { runningToolCallIds: new Set(['call_2']) }) });
      const violations = shapeViolations(messages);
      if (violations.length) throw new Error(`seed ${seed}: ${violations.join('; ')}`);
    }
  });
});
