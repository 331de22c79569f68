/**
 * The run tree and the queue: one row per run with where it stands. The dispatcher claims from the
 * runs this leaves `queued`; a session's live runs are found here to cancel them with it.
 */
import type { Projection } from './projection.js';

export interface RunRow {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  account_id: string;
  agent_id: string;
  session_id: string;
  kind: string;
  origin: string;
  priority: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export const runsProjection: Projection = {
  name: 'runs',
  version: 1,
  eventTypes: ['RunQueued', 'RunCanceled'],
  tables: {
    runs: `run_id TEXT PRIMARY KEY, root_run_id TEXT NOT NULL, parent_run_id TEXT, account_id TEXT NOT NULL,
           agent_id TEXT NOT NULL, session_id TEXT NOT NULL, kind TEXT NOT NULL, origin TEXT NOT NULL,
           priority TEXT NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL`,
  },
  indexes: [
    "CREATE INDEX {runs}_live_by_session ON {runs} (session_id) WHERE status NOT IN ('succeeded', 'failed', 'canceled')",
    "CREATE INDEX {runs}_queued ON {runs} (priority, created_at) WHERE status = 'queued'",
    'CREATE INDEX {runs}_by_root ON {runs} (root_run_id, created_at)',
  ],
  writeOnly: true,
  apply(event, tx) {
    const runId = event.stream.slice('run-'.length);
    const at = event.metadata.at;
    if (event.type === 'RunQueued') {
      const data = event.data as {
        rootRunId: string;
        parentRunId?: string;
        ownerAccountId: string;
        agentId: string;
        sessionId: string;
        kind: string;
        origin: string;
        priority: string;
      };
      tx.run(
        `INSERT OR IGNORE INTO {runs} (run_id, root_run_id, parent_run_id, account_id, agent_id, session_id, kind, origin, priority,
                                       status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
        runId,
        data.rootRunId,
        data.parentRunId ?? null,
        data.ownerAccountId,
        data.agentId,
        data.sessionId,
        data.kind,
        data.origin,
        data.priority,
        at,
        at,
      );
    } else {
      tx.run("UPDATE {runs} SET status = 'canceled', updated_at = ? WHERE run_id = ?", at, runId);
    }
  },
};
