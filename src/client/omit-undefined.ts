/**
 * Signing caveat (spec/http-api.md): some DAG-CBOR paths write `undefined` as null, so a signature
 * over an action with an explicit undefined field fails once the server decodes it. Actions are
 * therefore stripped of undefined fields before they are encoded and signed.
 */

/**
 * Returns a copy of `value` without `undefined` object fields, at any depth. Only arrays and plain
 * objects are walked: byte arrays, CIDs and other encodable instances are kept as they are.
 * An undefined array element has no field to drop, so it is refused rather than signed as null.
 */
export function omitUndefined<T>(value: T): T {
  return strip(value, '$') as T;
}

function strip(value: unknown, path: string): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    // An index loop rather than map(): map() skips holes, and a hole reads as undefined too.
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined) {
        throw new TypeError(
          `${path}[${i}] is undefined: an array element cannot be omitted; remove it or use null`,
        );
      }
      out.push(strip(item, `${path}[${i}]`));
    }
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) out[key] = strip(field, `${path}.${key}`);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
