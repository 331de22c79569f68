/** The session read model as the wire shows it, and the checks of the session ids actions carry. */
import { parseUuid } from '../parse-id.js';
import type { AgentAccessRole } from '../../protocol/agents.js';
import type { SessionEvent, SessionEventPayload, SessionInfo } from '../../protocol/sessions.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import type { SessionViewRow } from '../../projections/session-view.projection.js';
import type { ProjectionService } from '../../projections/projection-service.js';
import { readAccess } from '../agents/agent-read.js';
import type { AgentRow } from '../../projections/agents.projection.js';

export const parseSessionId = (value: unknown, field: string): string => parseUuid(value, field, 'a session id as CreateSession answered it');

export type ListedSessionRow = SessionViewRow & { child_session_count: number };

export function sessionInfo(row: SessionViewRow & { child_session_count?: number }): SessionInfo {
  return {
    id: row.session_id,
    account: row.account_id ?? '',
    agentId: row.agent_id ?? '',
    ...(row.title !== null ? { title: row.title } : {}),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.parent_session_id !== null ? { parentSessionId: row.parent_session_id } : {}),
    ...(row.run_id !== null ? { runId: row.run_id } : {}),
    ...(row.child_session_count ? { childSessionCount: row.child_session_count } : {}),
  };
}

export const CHILD_COUNT_SQL = '(SELECT COUNT(*) FROM {sessions} c WHERE c.parent_session_id = s.session_id AND c.deleted = 0)';

/** The live session's row with its child count, and the role `account` has on its agent; null when either is hidden from it. */
export function readSessionAccess(
  projections: ProjectionService,
  sessionId: string,
  account: string,
): { row: ListedSessionRow; agent: AgentRow; role: AgentAccessRole } | null {
  const row = projections
    .reader('session_view')
    .get<ListedSessionRow>(`SELECT s.*, ${CHILD_COUNT_SQL} AS child_session_count FROM {sessions} s WHERE s.session_id = ? AND s.deleted = 0 AND s.agent_id IS NOT NULL`, sessionId);
  if (!row) return null;
  const access = readAccess(projections, row.agent_id!, account);
  if (!access) return null;
  return { row, agent: access.row, role: access.role };
}

/** A Log event as GetSession and `append` frames carry it: the payload with its type and actor. */
export function sessionEvent(event: CatalogEvent, sessionId: string): SessionEvent {
  return {
    id: event.id,
    sessionId,
    seq: event.metadata.seq!,
    event: { type: event.type, ...(event.data as object), actor: event.metadata.actor } as SessionEventPayload,
    createdAt: event.metadata.at,
  };
}
