/**
 * A position in `$all`. Opaque to callers: compare it, store it, send it — never do arithmetic on it.
 * KurrentDB positions are a commit/prepare pair; the SQLite store uses its global sequence for both.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export function position(commit: bigint, prepare: bigint = commit): Position {
  return { commit, prepare };
}

export function comparePositions(a: Position, b: Position): -1 | 0 | 1 {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** `"42"` when commit and prepare agree (SQLite), `"42/40"` otherwise. */
export function serializePosition(p: Position): string {
  return p.commit === p.prepare ? `${p.commit}` : `${p.commit}/${p.prepare}`;
}

const POSITION_TEXT = /^(\d{1,20})(?:\/(\d{1,20}))?$/;

export function parsePosition(text: string): Position {
  const match = POSITION_TEXT.exec(text);
  if (!match) {
    throw new TypeError(`Invalid position "${text}": expected "<commit>" or "<commit>/<prepare>" in decimal digits`);
  }
  const commit = BigInt(match[1]!);
  return position(commit, match[2] === undefined ? commit : BigInt(match[2]));
}
