import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encodeFrame } from './frames.js';

/** `ws`'s own framing, to check ours against (the package ships no types here). */
const { Sender } = createRequire(import.meta.url)('ws') as {
  Sender: { frame(data: Buffer, options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean }): Buffer[] };
};

describe('encodeFrame', () => {
  it.each([0, 1, 100, 125, 126, 127, 1_000, 65_535, 65_536, 200_000])('frames a %i-character message as ws does', (size) => {
    const message = 'x'.repeat(Math.max(0, size - 17));
    const frame = encodeFrame({ _: 'error', message });
    const json = Buffer.from(JSON.stringify({ _: 'error', message }));
    expect(frame).toEqual(Buffer.concat(Sender.frame(json, { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false })));
  });

  it('counts UTF-8 bytes, not characters', () => {
    const frame = encodeFrame({ _: 'error', message: 'é'.repeat(100) });
    const json = Buffer.from(JSON.stringify({ _: 'error', message: 'é'.repeat(100) }));
    expect(frame.subarray(frame.length - json.length)).toEqual(json);
    expect(frame.readUInt16BE(2)).toBe(json.length);
  });
});
