/** One session as its `session-<id>` stream has it: the state the session deciders decide against. */
import { LOG_EVENT_TYPES } from '../../events/catalog/log-events.js';

export type TitleSource = 'user' | 'auto';

export interface SessionState {
  id: string;
  agentId: string;
  ownerAccountId: string;
  title?: string;
  titleSource?: TitleSource;
  parentSessionId?: string;
  runId?: string;
  createdAt: number;
  updatedAt: number;
  deleted: boolean;
  /** The Log's last `seq`; 0 before its first event. */
  lastSeq: number;
  /** CID of the last Log event as stored: the next one's `prev`. */
  lastLogCid?: string;
  /**
   * Ids of every event in the stream: an action replayed with the same event ids appends nothing.
   * Grown in place rather than copied per event — a stream is folded once, front to back — so
   * loading a long session stays linear.
   */
  eventIds: Set<string>;
}

const LOG_TYPES: ReadonlySet<string> = new Set(LOG_EVENT_TYPES);

export const isLogEvent = (type: string): boolean => LOG_TYPES.has(type);

export function evolveSession(
  state: SessionState | null,
  event: { id: string; type: string; data: unknown; metadata: { at: number; seq?: number } },
  sessionId: string,
): SessionState | null {
  const at = event.metadata.at;
  if (event.type === 'SessionCreated') {
    const data = event.data as { agentId: string; ownerAccountId: string; title?: string; parentSessionId?: string; runId?: string };
    return {
      id: sessionId,
      agentId: data.agentId,
      ownerAccountId: data.ownerAccountId,
      ...(data.title !== undefined ? { title: data.title } : {}),
      ...(data.parentSessionId !== undefined ? { parentSessionId: data.parentSessionId } : {}),
      ...(data.runId !== undefined ? { runId: data.runId } : {}),
      createdAt: at,
      updatedAt: at,
      deleted: false,
      lastSeq: 0,
      eventIds: new Set([event.id]),
    };
  }
  if (!state) return state;
  const eventIds = state.eventIds.add(event.id);
  switch (event.type) {
    case 'SessionRenamed': {
      const { title, titleSource } = event.data as { title: string; titleSource: TitleSource };
      return { ...state, title, titleSource, updatedAt: at, eventIds };
    }
    case 'SessionDeleted':
      return { ...state, deleted: true, updatedAt: at, eventIds };
    default:
      if (!isLogEvent(event.type)) return { ...state, eventIds };
      return { ...state, lastSeq: event.metadata.seq ?? state.lastSeq + 1, updatedAt: at, eventIds };
  }
}
