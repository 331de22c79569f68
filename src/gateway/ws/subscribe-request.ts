/**
 * A verified Subscribe action, checked: the key's syntax, afterSeq, and nothing else in the action.
 * Every refusal says what was wrong and what is accepted.
 */
import { describe } from '../../commands/accounts/credentials-input.js';
import { parseAfterSeq } from '../../commands/sessions/sessions.handlers.js';
import type { DecodedAction } from '../envelope/verify-envelope.js';
import { ApiError } from '../../protocol/api-error.js';
import { WS_PATH } from '../../protocol/ws.js';

export type SubscribeRequest =
  | { kind: 'account'; id: string; afterSeq: number }
  | { kind: 'agents'; id: string; afterSeq: number }
  | { kind: 'sessions'; id: string; afterSeq: number }
  | { kind: 'runs'; id: string; afterSeq: number };

const FIELDS = ['key', 'afterSeq'];
const KEY = /^(account|agents|sessions|runs)\/(.+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEYS = 'account/<accountId>, agents/<agentId>, sessions/<sessionId> or runs/<rootRunId>';
const ID_OF: Record<Exclude<SubscribeRequest['kind'], 'account'>, string> = {
  agents: 'an agent id as CreateAgent answered it',
  sessions: 'a session id as CreateSession answered it',
  runs: 'a root run id as GetRun or ListRuns answer it',
};

export function parseSubscribe(action: DecodedAction): SubscribeRequest {
  if (action._ !== 'Subscribe') {
    throw new ApiError(
      400,
      `Unknown action "${action._}" on ${WS_PATH}: this socket accepts only Subscribe {key, afterSeq?}; send other actions to POST /api/message`,
    );
  }
  for (const field of Object.keys(action)) {
    if (field !== '_' && field !== 'ts' && !FIELDS.includes(field)) {
      throw new ApiError(400, `Unknown field "${field}" in Subscribe; accepted fields: ${FIELDS.join(', ')}`);
    }
  }
  const { key } = action;
  const match = typeof key === 'string' ? KEY.exec(key) : null;
  if (!match) throw new ApiError(400, `Subscribe.key must be ${KEYS}; got ${describe(key)}`);
  const kind = match[1] as SubscribeRequest['kind'];
  const id = match[2]!;
  if (kind !== 'account' && !UUID.test(id)) {
    throw new ApiError(400, `Subscribe.key "${key}": the id after "${kind}/" must be ${ID_OF[kind]} (a lower-case UUID)`);
  }
  return { kind, id, afterSeq: parseAfterSeq(action.afterSeq, 'Subscribe.afterSeq') };
}
