/**
 * What a model pass starts from: the agent's system prompt with the session's current status, the
 * Log replayed as chat messages, and — last, never stored — the plan as it stands.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { systemPromptMarkdown } from '../../commands/sessions/system-prompt.js';
import type { AgentDefinition } from '../../protocol/agents.js';
import { currentPlan, planStateBlock } from '../../verbs/plan.js';
import { currentDescription, sessionStatusBlock } from '../../verbs/status.js';
import type { LogEntry } from '../transcript/log-entry.js';
import { replayTranscript } from '../transcript/replay.js';
import type { ClaimedRun } from '../run-executor.js';
import type { TurnLog } from './turn-log.js';

export function passMessages(definition: AgentDefinition, turnLog: TurnLog, run?: Pick<ClaimedRun, 'runId' | 'messageEventIds'>): ChatCompletionMessageParam[] {
  const { session, entries } = turnLog;
  const status = sessionStatusBlock({ title: session?.title, description: currentDescription(entries) });
  const systemPrompt = [systemPromptMarkdown({ definition: JSON.stringify(definition) }), status].filter(Boolean).join('\n\n');
  const messages = replayTranscript(run ? entriesForRun(turnLog, run) : entries, { systemPrompt });
  const plan = currentPlan(entries);
  if (plan?.steps.length) messages.push({ role: 'user', content: planStateBlock(plan) });
  return messages;
}

/**
 * The Log as one run answers it (spec/http-api.md, MessageSession: a queued turn answers the exact
 * messages that arrived during the preceding response, and that response's later events are not
 * mistaken for answers to them). Messages sent while an earlier turn worked sit in the Log among
 * that turn's events, and turns run one at a time per session, so: the messages this run answers
 * move after the earlier turns' events, and the messages later runs answer are left out.
 */
export function entriesForRun({ entries, causes }: TurnLog, run: Pick<ClaimedRun, 'runId' | 'messageEventIds'>): LogEntry[] {
  const answering = new Set(run.messageEventIds);
  const mine = entries.filter((entry) => answering.has(entry.id));
  if (!mine.length) return entries;
  const lastMine = mine.at(-1)!.seq;
  const own = (entry: LogEntry) => causes.get(entry.id) === run.runId;
  const later = (entry: LogEntry) => entry.seq > lastMine && entry.actor === 'user' && entry.event.type === 'message' && !own(entry);
  const rest = entries.filter((entry) => !answering.has(entry.id) && !later(entry));
  const firstOwn = rest.findIndex(own);
  const until = firstOwn === -1 ? rest.length : firstOwn;
  // After the last event an earlier turn appended before this run began, and never before where the messages were.
  let at = rest.filter((entry) => entry.seq < lastMine).length;
  for (let i = until - 1; i >= at; i--) {
    if (rest[i]!.actor !== 'user') {
      at = i + 1;
      break;
    }
  }
  return [...rest.slice(0, at), ...mine, ...rest.slice(at)];
}
