/**
 * How far a run got before this attempt, read from the Log alone: a run may be executed again
 * after a crash or a lost lease, and everything it already did is there, appended under its id.
 */
import type { LogEntry } from '../transcript/log-entry.js';
import { MAX_RUN_CONTINUATIONS } from './obligations.js';
import { continuationId, unmetObligationsId } from './turn-ids.js';
import { entriesOfRun, type TurnLog } from './turn-log.js';

export interface RunProgress {
  /** Calls the run made whose results never reached the Log. */
  interrupted: { id: string; name: string }[];
  /** Hand-backs of open obligations already spent. */
  continuations: number;
  /** The run already ended owing something: its notice is in the Log. */
  ended: boolean;
  /** The run's last event is assistant text: its model pass had finished. */
  passEnded: boolean;
  /** The run's last assistant message, if any. */
  lastAnswerId?: string;
}

export function runProgress(turnLog: TurnLog, runId: string): RunProgress {
  const own = entriesOfRun(turnLog, runId);
  const ids = new Set(own.map((entry) => entry.id));
  const answered = new Set(turnLog.entries.flatMap(({ actor, event }) => (event.type === 'tool_result' && actor !== 'user' ? [event.toolCallId] : [])));
  let continuations = 0;
  while (continuations < MAX_RUN_CONTINUATIONS && ids.has(continuationId(runId, continuations + 1))) continuations++;
  const last = own.at(-1);
  const lastAnswer = own.findLast(isAssistantMessage);
  return {
    interrupted: own.flatMap(({ event }) => (event.type === 'tool_call' && !answered.has(event.id) ? [{ id: event.id, name: event.name }] : [])),
    continuations,
    ended: ids.has(unmetObligationsId(runId)),
    passEnded: last !== undefined && isAssistantMessage(last),
    ...(lastAnswer ? { lastAnswerId: lastAnswer.id } : {}),
  };
}

function isAssistantMessage({ event }: LogEntry): boolean {
  return event.type === 'message' && event.role === 'assistant';
}
