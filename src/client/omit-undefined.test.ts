import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { omitUndefined } from './omit-undefined.js';

describe('omitUndefined', () => {
  it('drops undefined fields at every depth and keeps null, bytes and CIDs as they are', () => {
    const bytes = Uint8Array.of(1, 2, 3);
    const cid = CID.parse('bafyreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy');
    const out = omitUndefined({
      _: 'Subscribe',
      afterSeq: undefined,
      keep: null,
      nested: { a: undefined, b: 1, deeper: [{ c: undefined, d: 'x' }] },
      bytes,
      cid,
    });
    expect(out).toStrictEqual({ _: 'Subscribe', keep: null, nested: { b: 1, deeper: [{ d: 'x' }] }, bytes, cid });
    expect(out.bytes).toBe(bytes);
    expect(out.cid).toBe(cid);
    expect(Object.hasOwn(out, 'afterSeq')).toBe(false);
  });

  it('refuses undefined array elements, holes included, naming where they are', () => {
    expect(() => omitUndefined({ items: [1, undefined] })).toThrow(
      '$.items[1] is undefined: an array element cannot be omitted; remove it or use null',
    );
    expect(() => omitUndefined({ a: { b: [0, , 2] } })).toThrow(/^\$\.a\.b\[1\] is undefined/);
  });

  it('does not change its input', () => {
    const input = { a: undefined, b: { c: undefined } };
    omitUndefined(input);
    expect(Object.hasOwn(input, 'a')).toBe(true);
    expect(Object.hasOwn(input.b, 'c')).toBe(true);
  });
});
