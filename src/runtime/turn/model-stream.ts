/**
 * One streamed chat completion: the request a turn sends and the reply assembled from its chunks —
 * text as it arrives, tool calls from their incremental deltas, usage from the final chunk.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ReasoningLevel } from '../../protocol/agents.js';
import type { AgentRunUsage } from '../../protocol/sessions.js';

/** How long a provider may send nothing — before its first byte or between chunks — before the call is given up. */
export const MODEL_IDLE_TIMEOUT_MS = 120_000;

export interface ModelRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  reasoningLevel?: ReasoningLevel;
  /** The provider's `modelDefaults`: under the fields the turn depends on, over everything else. */
  modelDefaults?: Record<string, unknown>;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** As the model wrote them: JSON text, not necessarily valid. */
  arguments: string;
}

export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
  usage: AgentRunUsage;
  finishReason: string | null;
}

/** The provider stopped sending: distinct from the caller's abort, which is not the provider's fault. */
export class ModelStalledError extends Error {
  override name = 'ModelStalledError';
  constructor(readonly idleMs: number) {
    super(`no data for ${idleMs / 1000} s`);
  }
}

export const NO_USAGE: AgentRunUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

export function requestBody(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  return {
    ...request.modelDefaults,
    model: request.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length ? { tools: request.tools } : {}),
    ...(request.reasoningLevel === undefined ? {} : { reasoning_effort: request.reasoningLevel }),
  };
}

export async function streamModelReply(
  client: OpenAI,
  request: ModelRequest,
  options: { signal: AbortSignal; onText: (delta: string) => void; idleTimeoutMs?: number },
): Promise<ModelReply> {
  const idleMs = options.idleTimeoutMs ?? MODEL_IDLE_TIMEOUT_MS;
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), idleMs);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  const reply: ModelReply = { text: '', toolCalls: [], usage: NO_USAGE, finishReason: null };
  const calls: ModelToolCall[] = [];
  try {
    const stream = await client.chat.completions.create(requestBody(request), { signal: AbortSignal.any([options.signal, idle.signal]) });
    for await (const chunk of stream) {
      touch();
      if (chunk.usage) reply.usage = usageOf(chunk.usage);
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.finish_reason) reply.finishReason = choice.finish_reason;
      const { content, tool_calls: deltas } = choice.delta;
      if (content) {
        reply.text += content;
        options.onText(content);
      }
      for (const delta of deltas ?? []) {
        const call = (calls[delta.index] ??= { id: '', name: '', arguments: '' });
        if (delta.id) call.id = delta.id;
        // The name comes whole in one delta; some servers repeat it in later ones.
        if (delta.function?.name && !call.name) call.name = delta.function.name;
        if (delta.function?.arguments) call.arguments += delta.function.arguments;
      }
    }
    // The client's stream ends quietly when aborted, as if the provider had finished.
    if (idle.signal.aborted || options.signal.aborted) throw options.signal.reason ?? idle.signal.reason;
  } catch (error) {
    if (idle.signal.aborted && !options.signal.aborted) throw new ModelStalledError(idleMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  reply.toolCalls = calls.filter((call) => call !== undefined);
  return reply;
}

/** Cached prompt tokens are counted once, as cache reads, not again as input. */
function usageOf(usage: CompletionUsage): AgentRunUsage {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const input = Math.max(0, usage.prompt_tokens - cacheRead);
  const output = usage.completion_tokens;
  return { input, output, cacheRead, cacheWrite: 0, total: input + output + cacheRead };
}
