/**
 * What a model pass starts from: the agent's system prompt with the session's current status, the
 * Log replayed as chat messages, and — last, never stored — the plan as it stands.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { systemPromptMarkdown } from '../../commands/sessions/system-prompt.js';
import type { AgentDefinition } from '../../protocol/agents.js';
import { currentPlan, planStateBlock } from '../../verbs/plan.js';
import { currentDescription, sessionStatusBlock } from '../../verbs/status.js';
import { replayTranscript } from '../transcript/replay.js';
import type { TurnLog } from './turn-log.js';

export function passMessages(definition: AgentDefinition, { session, entries }: TurnLog): ChatCompletionMessageParam[] {
  const status = sessionStatusBlock({ title: session?.title, description: currentDescription(entries) });
  const systemPrompt = [systemPromptMarkdown({ definition: JSON.stringify(definition) }), status].filter(Boolean).join('\n\n');
  const messages = replayTranscript(entries, { systemPrompt });
  const plan = currentPlan(entries);
  if (plan?.steps.length) messages.push({ role: 'user', content: planStateBlock(plan) });
  return messages;
}
