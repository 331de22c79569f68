/**
 * ListSessions (spec/http-api.md): newest first, keyset pages on (updatedAt, id) so rows sharing one
 * `updatedAt` are each returned exactly once across pages, with the agents the page references.
 */
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../protocol/api-error.js';
import type { AgentInfo } from '../../protocol/agents.js';
import {
  DEFAULT_SESSION_PAGE,
  MAX_SESSION_PAGE,
  type ListSessions,
  type ListSessionsResponse,
  type SessionListCursor,
} from '../../protocol/sessions.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { describe, isPlainObject } from '../accounts/credentials-input.js';
import { agentInfo, parseAgentId, readAccess } from '../agents/agent-read.js';
import { agentNotFound } from '../agents/agents.decider.js';
import { parseLimit } from '../page-limit.js';
import { sessionNotFound } from './session-access.js';
import { CHILD_COUNT_SQL, parseSessionId, readSessionAccess, sessionInfo, type ListedSessionRow } from './session-read.js';

export function parseCursor(value: unknown): SessionListCursor | undefined {
  if (value === undefined) return undefined;
  const shape = 'the nextCursor of the previous page, verbatim: {updatedBefore: number, idBefore: string}';
  if (!isPlainObject(value)) throw new ApiError(400, `ListSessions.cursor must be ${shape}; got ${describe(value)}`);
  const unknown = Object.keys(value).filter((key) => key !== 'updatedBefore' && key !== 'idBefore');
  if (unknown.length) throw new ApiError(400, `ListSessions.cursor has unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; it must be ${shape}`);
  const { updatedBefore, idBefore } = value;
  if (typeof updatedBefore !== 'number' || !Number.isSafeInteger(updatedBefore) || typeof idBefore !== 'string') {
    throw new ApiError(400, `ListSessions.cursor must be ${shape}; got ${describe(value)}`);
  }
  return { updatedBefore, idBefore };
}

@Injectable()
export class ListSessionsHandler implements ActionHandler<ListSessions, ListSessionsResponse> {
  readonly action = 'ListSessions' as const;
  readonly fields = ['agentId', 'limit', 'cursor', 'parentSessionId', 'includeChildren'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: ListSessions, context: ActionContext): Promise<ListSessionsResponse> {
    const limit = parseLimit(action.limit, 'ListSessions.limit', DEFAULT_SESSION_PAGE, MAX_SESSION_PAGE);
    const cursor = parseCursor(action.cursor);
    if (action.includeChildren !== undefined && typeof action.includeChildren !== 'boolean') {
      throw new ApiError(400, `ListSessions.includeChildren must be true or false, got ${describe(action.includeChildren)}`);
    }
    const where: string[] = ['s.deleted = 0'];
    const params: unknown[] = [];
    if (action.agentId !== undefined) {
      const agentId = parseAgentId(action.agentId, 'ListSessions.agentId');
      if (!readAccess(this.projections, agentId, context.account)) throw agentNotFound();
      where.push('s.agent_id = ?');
      params.push(agentId);
    }
    if (action.parentSessionId !== undefined) {
      const parentId = parseSessionId(action.parentSessionId, 'ListSessions.parentSessionId');
      if (!readSessionAccess(this.projections, parentId, context.account)) throw sessionNotFound();
      where.push('s.parent_session_id = ?');
      params.push(parentId);
    } else if (action.includeChildren === false) {
      where.push('s.parent_session_id IS NULL');
    }
    if (action.agentId === undefined && action.parentSessionId === undefined) {
      // Across agents: those the account owns or is an accepted member of, never public-only ones.
      where.push('s.agent_id IN (SELECT agent_id FROM {audience} WHERE account_id = ? AND accepted = 1)');
      params.push(context.account);
    }
    if (cursor) {
      where.push('(s.updated_at < ? OR (s.updated_at = ? AND s.session_id < ?))');
      params.push(cursor.updatedBefore, cursor.updatedBefore, cursor.idBefore);
    }
    const rows = this.projections.reader('session_view').all<ListedSessionRow>(
      `SELECT s.*, ${CHILD_COUNT_SQL} AS child_session_count FROM {sessions} s
       WHERE ${where.join(' AND ')} ORDER BY s.updated_at DESC, s.session_id DESC LIMIT ?`,
      ...params,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      _: 'ListSessionsResponse',
      sessions: page.map(sessionInfo),
      agents: this.agentsOf(page, context.account),
      ...(rows.length > limit && last ? { nextCursor: { updatedBefore: last.updated_at, idBefore: last.session_id } } : {}),
    };
  }

  private agentsOf(rows: readonly ListedSessionRow[], account: string): AgentInfo[] {
    const agents: AgentInfo[] = [];
    for (const agentId of new Set(rows.map((row) => row.agent_id!))) {
      const access = readAccess(this.projections, agentId, account);
      if (access) agents.push(agentInfo(access.row, access.role));
    }
    return agents;
  }
}
