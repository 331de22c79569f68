/** The runs read model as the wire shows it, and who may see a run: whoever may see its agent. */
import { ApiError } from '../../protocol/api-error.js';
import { parseUuid } from '../parse-id.js';
import type { AgentAccessRole } from '../../protocol/agents.js';
import type { RunInfo } from '../../protocol/runs.js';
import type { AgentRunUsage } from '../../protocol/sessions.js';
import type { ProjectionService } from '../../projections/projection-service.js';
import type { RunRow } from '../../projections/runs.projection.js';
import { readAccess } from '../agents/agent-read.js';

export const runNotFound = (): ApiError => new ApiError(404, 'Run not found');

export const parseRunId = (value: unknown, field: string): string => parseUuid(value, field, 'a run id');

export const CHILD_RUNS_SQL = '(SELECT COUNT(*) FROM {runs} c WHERE c.parent_run_id = r.run_id)';

export function runInfo(row: RunRow & { child_run_count?: number }): RunInfo {
  return {
    id: row.run_id,
    account: row.account_id,
    rootRunId: row.root_run_id,
    ...(row.parent_run_id !== null ? { parentRunId: row.parent_run_id } : {}),
    depth: row.depth,
    kind: row.kind as RunInfo['kind'],
    agentId: row.agent_id,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    origin: row.origin as RunInfo['origin'],
    ...(row.child_run_count ? { childRunCount: row.child_run_count } : {}),
    status: row.status as RunInfo['status'],
    ...(row.error_code !== null ? { error: { code: row.error_code, message: row.error_message ?? '' } } : {}),
    ...(row.usage !== null ? { usage: JSON.parse(row.usage) as AgentRunUsage } : {}),
    createdAt: row.created_at,
    ...(row.started_at !== null ? { startedAt: row.started_at } : {}),
    ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    updatedAt: row.updated_at,
  };
}

/** The run and the account's role on its agent; null when either is hidden from the account. */
export function readRunAccess(projections: ProjectionService, runId: string, account: string): { row: RunRow & { child_run_count: number }; role: AgentAccessRole } | null {
  const row = projections.reader('runs').get<RunRow & { child_run_count: number }>(`SELECT r.*, ${CHILD_RUNS_SQL} AS child_run_count FROM {runs} r WHERE r.run_id = ?`, runId);
  if (!row) return null;
  const access = readAccess(projections, row.agent_id, account);
  return access && { row, role: access.role };
}
