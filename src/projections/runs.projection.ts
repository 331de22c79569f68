/**
 * The run tree and the queue: one row per run with where it stands. The dispatcher claims from the
 * runs this leaves `queued` and due, in the order they were queued; a session's live runs are found
 * here to cancel them with it; GetRun and ListRuns answer from it.
 */
import type { Projection, ProjectionTx } from './projection.js';

export interface RunRow {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  depth: number;
  account_id: string;
  agent_id: string;
  /** Null once the session is deleted: the run's history stays, detached (spec: DeleteSession). */
  session_id: string | null;
  kind: string;
  origin: string;
  priority: 'interactive' | 'background';
  status: string;
  attempt: number;
  lease_owner: string | null;
  lease_until: number | null;
  not_before: number | null;
  /** Where the RunQueued event sits in `$all`: the queue's order. */
  queued_at_commit: number;
  error_code: string | null;
  error_message: string | null;
  cancel_reason: string | null;
  usage: string | null;
  assistant_event_id: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

type Data = Record<string, unknown>;

function update(tx: ProjectionTx, runId: string, at: number, assignments: string, ...params: unknown[]): void {
  tx.run(`UPDATE {runs} SET ${assignments}, updated_at = ? WHERE run_id = ?`, ...params, at, runId);
}

/** Usage accumulates over attempts, as the run's state does. */
const ADD_USAGE = `usage = CASE WHEN ? IS NULL THEN usage WHEN usage IS NULL THEN ? ELSE json_object(
  'input', json_extract(usage, '$.input') + json_extract(?, '$.input'),
  'output', json_extract(usage, '$.output') + json_extract(?, '$.output'),
  'cacheRead', json_extract(usage, '$.cacheRead') + json_extract(?, '$.cacheRead'),
  'cacheWrite', json_extract(usage, '$.cacheWrite') + json_extract(?, '$.cacheWrite'),
  'total', json_extract(usage, '$.total') + json_extract(?, '$.total')) END`;

const usageParams = (data: Data): unknown[] => {
  const usage = data.usage === undefined ? null : JSON.stringify(data.usage);
  return [usage, usage, usage, usage, usage, usage, usage];
};

export const runsProjection: Projection = {
  name: 'runs',
  version: 3,
  eventTypes: ['SessionDeleted', 'RunQueued', 'RunClaimed', 'RunLeaseRenewed', 'RunStarted', 'RunParked', 'RunWoken', 'RunAttemptFailed', 'RunSucceeded', 'RunFailed', 'RunCanceled'],
  tables: {
    runs: `run_id TEXT PRIMARY KEY, root_run_id TEXT NOT NULL, parent_run_id TEXT, depth INTEGER NOT NULL, account_id TEXT NOT NULL,
           agent_id TEXT NOT NULL, session_id TEXT, kind TEXT NOT NULL, origin TEXT NOT NULL,
           priority TEXT NOT NULL, status TEXT NOT NULL, attempt INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
           not_before INTEGER, queued_at_commit INTEGER NOT NULL, error_code TEXT, error_message TEXT, cancel_reason TEXT,
           usage TEXT, assistant_event_id TEXT, created_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER,
           updated_at INTEGER NOT NULL`,
  },
  indexes: [
    "CREATE INDEX {runs}_live_by_session ON {runs} (session_id, queued_at_commit) WHERE status NOT IN ('succeeded', 'failed', 'canceled')",
    "CREATE INDEX {runs}_runnable ON {runs} (priority, queued_at_commit) WHERE status IN ('queued', 'claimed', 'running')",
    'CREATE INDEX {runs}_by_session ON {runs} (session_id, created_at)',
    'CREATE INDEX {runs}_by_root ON {runs} (root_run_id, created_at)',
    'CREATE INDEX {runs}_by_agent ON {runs} (agent_id, created_at)',
  ],
  writeOnly: true,
  apply(event, tx) {
    if (event.type === 'SessionDeleted') {
      tx.run('UPDATE {runs} SET session_id = NULL WHERE session_id = ?', event.stream.slice('session-'.length));
      return;
    }
    const runId = event.stream.slice('run-'.length);
    const at = event.metadata.at;
    const data = event.data as Data;
    switch (event.type) {
      case 'RunQueued':
        tx.run(
          `INSERT OR IGNORE INTO {runs} (run_id, root_run_id, parent_run_id, depth, account_id, agent_id, session_id, kind, origin,
                                         priority, status, attempt, queued_at_commit, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
          runId,
          data.rootRunId,
          data.parentRunId ?? null,
          data.depth,
          data.ownerAccountId,
          data.agentId,
          data.sessionId,
          data.kind,
          data.origin,
          data.priority,
          event.position.commit,
          at,
          at,
        );
        return;
      case 'RunClaimed':
        update(tx, runId, at, "status = 'claimed', lease_owner = ?, lease_until = ?, attempt = ?", data.owner, data.leaseUntil, data.attempt);
        return;
      case 'RunLeaseRenewed':
        update(tx, runId, at, 'lease_until = ?', data.leaseUntil);
        return;
      case 'RunStarted':
        update(tx, runId, at, "status = 'running', started_at = COALESCE(started_at, ?)", at);
        return;
      case 'RunParked':
        update(tx, runId, at, "status = 'waiting', lease_owner = NULL, lease_until = NULL, not_before = ?", data.wakeAt ?? null);
        return;
      case 'RunWoken':
        update(tx, runId, at, "status = 'queued', lease_owner = NULL, lease_until = NULL, not_before = NULL");
        return;
      case 'RunAttemptFailed': {
        const error = data.error as { code: string; message: string };
        update(tx, runId, at, `status = 'queued', lease_owner = NULL, lease_until = NULL, not_before = ?, error_code = ?, error_message = ?, ${ADD_USAGE}`, data.retryAt, error.code, error.message, ...usageParams(data));
        return;
      }
      case 'RunSucceeded':
        update(tx, runId, at, `status = 'succeeded', finished_at = ?, error_code = NULL, error_message = NULL, assistant_event_id = ?, ${ADD_USAGE}`, at, data.assistantEventId ?? null, ...usageParams(data));
        return;
      case 'RunFailed': {
        const error = data.error as { code: string; message: string };
        update(tx, runId, at, `status = 'failed', finished_at = ?, error_code = ?, error_message = ?, ${ADD_USAGE}`, at, error.code, error.message, ...usageParams(data));
        return;
      }
      case 'RunCanceled':
        update(tx, runId, at, "status = 'canceled', finished_at = ?, cancel_reason = ?", at, data.reason);
        return;
    }
  },
};
