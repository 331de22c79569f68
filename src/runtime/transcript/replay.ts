/**
 * Transcript replay: a session's Log, rebuilt as the message list an OpenAI-compatible chat
 * completions request carries (spec/tools-and-verbs.md, "Tool lifecycle"). Follows upstream's
 * #piMessages (agents/src/api-service.ts) plus the repair Pi applies before sending
 * (pi-mono packages/ai/src/providers/transform-messages.ts), which this runtime has no Pi to do.
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { SessionAttachmentInfo } from '../../protocol/sessions.js';
import type { LogEntry, LogPayload } from './log-entry.js';
import { boundModelToolResultText } from './tool-result-bounds.js';

type MessageEvent = Extract<LogPayload, { type: 'message' }>;
type ToolCallEvent = Extract<LogPayload, { type: 'tool_call' }>;
type ToolResultEvent = Extract<LogPayload, { type: 'tool_result' }>;

export type ToolCallRequest = Pick<ToolCallEvent, 'id' | 'name' | 'input'>;
export type ToolOutcome = Pick<ToolResultEvent, 'output' | 'error'>;

export interface ReplayOptions {
  systemPrompt?: string;
  /**
   * Parked delegate calls whose child still runs. Their tool_call stays unanswered in the Log on
   * purpose; replay answers them "still running" so a new turn on a parked session is legal.
   */
  runningToolCallIds?: ReadonlySet<string>;
}

const NO_RESULT: ToolOutcome = { error: 'No result provided' };
const STILL_RUNNING = JSON.stringify({
  status: 'running',
  note: 'Still running in the background. Its real result will arrive in a later turn as this tool call’s result; do not wait for it — respond to the user now.',
});

export function replayTranscript(entries: readonly LogEntry[], options: ReplayOptions = {}): ChatCompletionMessageParam[] {
  const { agentCallIds, userCallIds, results } = indexToolEvents(entries);
  const running = options.runningToolCallIds ?? new Set<string>();
  const messages: ChatCompletionMessageParam[] = options.systemPrompt === undefined ? [] : [{ role: 'system', content: options.systemPrompt }];
  const replayedCallIds = new Set<string>();
  let turn: { texts: string[]; calls: ToolCallEvent[] } | undefined;

  // Providers want a call's result directly behind the assistant message that made it, but the Log
  // interleaves (a parked delegate's result lands after later user turns), so results are attached
  // here rather than replayed where they were appended.
  const flush = (): void => {
    if (!turn) return;
    messages.push(assistantMessageFor(turn.texts.join('\n\n') || null, turn.calls));
    for (const { id } of turn.calls) {
      const result = results.get(id);
      if (result) messages.push(toolMessageFor(id, result));
      else if (running.has(id)) messages.push({ role: 'tool', tool_call_id: id, content: STILL_RUNNING });
      else messages.push(toolMessageFor(id, NO_RESULT));
    }
    turn = undefined;
  };

  for (const { actor, event } of entries) {
    switch (event.type) {
      case 'message':
        if (event.role === 'user') {
          flush();
          messages.push({ role: 'user', content: userMessageText(event) });
        } else if (event.role === 'assistant' && event.content.trim()) {
          // Text after a batch of calls is the model speaking again, not the preface of those calls.
          if (turn?.calls.length) flush();
          (turn ??= { texts: [], calls: [] }).texts.push(event.content);
        }
        // A role 'tool' message is never replayed (as upstream): results travel as tool_result events.
        break;
      case 'tool_call':
        if (actor === 'user') {
          flush();
          messages.push(userAction('user_action', event.name, toJson(event.input ?? {})));
        } else if (!replayedCallIds.has(event.id)) {
          replayedCallIds.add(event.id);
          (turn ??= { texts: [], calls: [] }).calls.push(event);
        }
        break;
      case 'tool_result':
        if (actor === 'user') {
          flush();
          messages.push(userAction('user_action_result', event.name, toolResultText(event)));
        } else if (!userCallIds.has(event.toolCallId)) {
          // A non-user result answering a user's call (a stray synthetic) is dropped, as upstream does.
          flush();
          if (!agentCallIds.has(event.toolCallId) && !replayedCallIds.has(event.toolCallId)) {
            replayedCallIds.add(event.toolCallId);
            messages.push(...orphanExchange(event));
          }
        }
        break;
      case 'error':
        // Errors never reach the provider: a retried turn re-enters from the durable transcript.
        break;
    }
  }
  flush();
  return messages;
}

/** One assistant turn: its text (or null) and the calls it made, arguments as a JSON object string. */
export function assistantMessageFor(text: string | null, calls: readonly ToolCallRequest[]): ChatCompletionAssistantMessageParam {
  if (calls.length === 0) return { role: 'assistant', content: text };
  return {
    role: 'assistant',
    content: text,
    tool_calls: calls.map(({ id, name, input }) => ({
      id,
      type: 'function',
      // Function arguments must be a JSON object; upstream replays any other input as {}.
      function: { name, arguments: toJson(isPlainRecord(input) ? input : {}) },
    })),
  };
}

/** The model-facing answer to one call, bounded exactly as on the live path. */
export function toolMessageFor(toolCallId: string, outcome: ToolOutcome): ChatCompletionToolMessageParam {
  return { role: 'tool', tool_call_id: toolCallId, content: boundModelToolResultText(toolResultText(outcome)) };
}

function indexToolEvents(entries: readonly LogEntry[]) {
  const agentCallIds = new Set<string>();
  const userCallIds = new Set<string>();
  const results = new Map<string, ToolOutcome>();
  for (const { actor, event } of entries) {
    if (event.type === 'tool_call') (actor === 'user' ? userCallIds : agentCallIds).add(event.id);
    else if (event.type === 'tool_result' && actor !== 'user') results.set(event.toolCallId, event);
  }
  return { agentCallIds, userCallIds, results };
}

/**
 * A result whose call never reached the Log still tells the model something, but a lone tool
 * message is rejected; so its call is rebuilt with empty input, as upstream's live path does when a
 * tool ends without a recorded start.
 */
function orphanExchange(result: ToolResultEvent): ChatCompletionMessageParam[] {
  return [
    assistantMessageFor(null, [{ id: result.toolCallId, name: result.name, input: {} }]),
    toolMessageFor(result.toolCallId, result),
  ];
}

function toolResultText({ output, error }: ToolOutcome): string {
  if (error !== undefined) return `Error: ${error}`;
  return typeof output === 'string' ? output : toJson(output ?? {});
}

/**
 * Providers have no notion of a tool call the user made, so InvokeSessionTool's events replay as
 * tagged user messages. Every `<` is escaped so fetched content cannot close the frame and forge
 * further user actions (upstream escapeActionFraming).
 */
function userAction(tag: 'user_action' | 'user_action_result', verb: string, payload: string): ChatCompletionUserMessageParam {
  const framed = boundModelToolResultText(payload).replace(/</g, '\\u003c');
  return { role: 'user', content: `<${tag} verb="${verb}">\n${framed}\n</${tag}>` };
}

/** Window context and attachment metadata ride along for the model only; the Log's content stays clean. */
function userMessageText(message: MessageEvent): string {
  const parts = [message.content];
  if (message.contextLines?.length) parts.push(`<window_context>\n${message.contextLines.join('\n')}\n</window_context>`);
  if (message.attachments?.length) parts.push(attachmentsBlock(message.attachments));
  const text = parts.join('\n\n');
  const sender = isPlainRecord(message.meta) ? message.meta.accountId : undefined;
  // The signed sender reaches the model so shared sessions keep people apart; JSON keeps it inert.
  return typeof sender === 'string' ? `<message_sender>\n${JSON.stringify({ accountId: sender })}\n</message_sender>\n\n${text}` : text;
}

/** Metadata only: the bytes stay out of context until the model reads what it needs. */
function attachmentsBlock(attachments: readonly SessionAttachmentInfo[]): string {
  const lines = attachments.map(
    (a) => `- "${a.name}" (${a.mimeType || 'unknown type'}, ${a.size} bytes) — attachment id ${a.id}`,
  );
  return [
    '<attachments>',
    'The user attached these session-private files. Use `read attachment:<id>` to see an image or read a text file; ' +
      'use `write ~/memory/<path>` with {fromAttachment} to keep one across sessions, or `write ipfs://` with ' +
      '{fromAttachment} to publish one for Hypermedia content. Only read what you need.',
    ...lines,
    '</attachments>',
  ].join('\n');
}

/** Log values decode from CBOR, where integers past 2^53 arrive as bigint, which JSON.stringify rejects. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
