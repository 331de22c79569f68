/**
 * The ids of the events a run appends, derived from the run and what the event answers rather than
 * drawn at random: an append repeated after a crash or a lost lease carries the same id, and the
 * Log keeps the first one.
 */
import { uuidFrom } from '../../commands/action-context.js';

/** The assistant message of one model call: a pass is named by the Log's last seq when it began. */
export const messageId = (runId: string, passSeq: number, step: number): string => uuidFrom(`${runId}:message:${passSeq}:${step}`);
export const toolCallEventId = (runId: string, toolCallId: string): string => uuidFrom(`${runId}:tool_call:${toolCallId}`);
export const toolResultEventId = (runId: string, toolCallId: string): string => uuidFrom(`${runId}:tool_result:${toolCallId}`);
/** The `n`-th (1-based) hand-back of the run's open obligations. */
export const continuationId = (runId: string, n: number): string => uuidFrom(`${runId}:continuation:${n}`);
export const unmetObligationsId = (runId: string): string => uuidFrom(`${runId}:unmet-obligations`);
export const renameId = (runId: string, cause: string): string => uuidFrom(`${runId}:rename:${cause}`);
