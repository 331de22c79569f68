import { describe, expect, it } from 'vitest';
import {
  boundDurableToolResult,
  boundModelToolResultText,
  MAX_MODEL_TOOL_RESULT_BYTES,
  MAX_TOOL_RESULT_BYTES,
} from './tool-result-bounds.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
/** Lone surrogates do not survive a UTF-8 round trip, so this fails on half a code point. */
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

const NOTICE_START = '\n\n[RESULT TRUNCATED: ';
const splitNotice = (bounded: string): { head: string; notice: string } => {
  const at = bounded.lastIndexOf(NOTICE_START);
  return { head: bounded.slice(0, at), notice: bounded.slice(at) };
};

/** Filler that leaves `offset` bytes of room before a run of `char`, so the cut lands inside one. */
const straddling = (cap: number, offset: number, char: string): string =>
  'a'.repeat(cap - offset) + char.repeat(Math.ceil((cap * 2) / char.length));

describe('boundDurableToolResult', () => {
  it('given text at or under 256 KiB, when bounded, then it is unchanged', () => {
    const atCap = 'x'.repeat(MAX_TOOL_RESULT_BYTES);
    expect(boundDurableToolResult(atCap)).toBe(atCap);
    expect(boundDurableToolResult('short')).toBe('short');
  });

  it('given text over 256 KiB, when bounded, then a prefix plus the marker fits the cap exactly', () => {
    const text = 'y'.repeat(MAX_TOOL_RESULT_BYTES + 10);
    const bounded = boundDurableToolResult(text);
    expect(bounded.endsWith('\n[truncated]')).toBe(true);
    expect(bytes(bounded)).toBe(MAX_TOOL_RESULT_BYTES);
    expect(text.startsWith(bounded.slice(0, -'\n[truncated]'.length))).toBe(true);
  });

  for (const [label, char] of [
    ['an emoji (a surrogate pair, 4 bytes)', '😀'],
    ['a CJK character (3 bytes)', '漢'],
  ] as const) {
    it(`given the cap falls inside ${label}, when bounded, then the whole character is dropped, never split`, () => {
      for (let offset = 0; offset < 16; offset++) {
        const text = straddling(MAX_TOOL_RESULT_BYTES, offset, char);
        const bounded = boundDurableToolResult(text);
        const head = bounded.slice(0, -'\n[truncated]'.length);
        expect(wellFormed(bounded)).toBe(true);
        expect(text.startsWith(head)).toBe(true);
        expect(bytes(bounded)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
        // Maximal: one more character would not have fit.
        expect(bytes(head) + bytes(char) + bytes('\n[truncated]')).toBeGreaterThan(MAX_TOOL_RESULT_BYTES);
      }
    });
  }
});

describe('boundModelToolResultText', () => {
  it('given text at or under 8 KiB, when bounded, then it is unchanged', () => {
    const atCap = 'é'.repeat(MAX_MODEL_TOOL_RESULT_BYTES / 2);
    expect(bytes(atCap)).toBe(MAX_MODEL_TOOL_RESULT_BYTES);
    expect(boundModelToolResultText(atCap)).toBe(atCap);
  });

  it('given an oversized result, when bounded, then the notice says what was cut, how to proceed, and not to retry', () => {
    const text = 'z'.repeat(20_000);
    const { head, notice } = splitNotice(boundModelToolResultText(text));
    expect(notice).toContain(`20000 bytes total, only the first ${bytes(head)} bytes are shown`);
    expect(notice).toContain('Retrying this exact call will truncate the same way');
    expect(notice).toContain('bounded pieces');
    expect(notice).toContain('narrower slice');
    expect(notice).toContain('memory file');
    expect(notice).toContain('execute tool');
  });

  it('given an oversized result, when bounded, then kept text and notice together fit the 8 KiB cap', () => {
    for (const size of [MAX_MODEL_TOOL_RESULT_BYTES + 1, 10_000, 99_999, 100_000, 5_000_000]) {
      const bounded = boundModelToolResultText('q'.repeat(size));
      expect(bytes(bounded)).toBeLessThanOrEqual(MAX_MODEL_TOOL_RESULT_BYTES);
      // Only the reserve for the total's extra digits may go unused.
      const { head } = splitNotice(bounded);
      const unusedDigits = String(size).length - String(bytes(head)).length;
      expect(MAX_MODEL_TOOL_RESULT_BYTES - bytes(bounded)).toBeLessThanOrEqual(unusedDigits);
    }
  });

  for (const [label, char] of [
    ['an emoji (a surrogate pair, 4 bytes)', '🧪'],
    ['a CJK character (3 bytes)', '語'],
  ] as const) {
    it(`given the cut falls inside ${label}, when bounded, then no code point is split`, () => {
      for (let offset = 0; offset < 1_200; offset += 7) {
        const text = straddling(MAX_MODEL_TOOL_RESULT_BYTES, offset, char);
        const bounded = boundModelToolResultText(text);
        const { head } = splitNotice(bounded);
        expect(wellFormed(bounded)).toBe(true);
        expect(text.startsWith(head)).toBe(true);
        expect(bytes(bounded)).toBeLessThanOrEqual(MAX_MODEL_TOOL_RESULT_BYTES);
      }
    });
  }

  it('given an already bounded text, when bounded again on replay, then it is unchanged', () => {
    const once = boundModelToolResultText('界'.repeat(9_000));
    expect(boundModelToolResultText(once)).toBe(once);
  });
});
