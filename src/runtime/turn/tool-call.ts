/**
 * One tool call of a model reply, from what the model sent to what the Log keeps: an id unique in
 * the session, a name the Log accepts, the arguments parsed — or kept verbatim, with the reason,
 * when they are not JSON — and the call's outcome bounded to what a Log event may hold.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../../events/store/types.js';
import type { VerbContext, VerbOutcome, VerbRegistry } from '../../verbs/registry.js';
import { boundDurableToolResult, MAX_TOOL_RESULT_BYTES } from '../transcript/tool-result-bounds.js';
import type { ModelToolCall } from './model-stream.js';

const MAX_TOOL_NAME_CHARS = 128;

export interface ToolCall {
  id: string;
  name: string;
  input: JsonValue;
  /** Why the arguments could not be read; `input` is then their text as sent. */
  malformed?: string;
}

/**
 * `taken` holds the session's call ids so far and is extended: some OpenAI-compatible servers number
 * calls per reply (`call_0`), and a repeated id would make replay drop the later call.
 */
export function toolCallOf(call: ModelToolCall, taken: Set<string>): ToolCall {
  const id = call.id && !taken.has(call.id) ? call.id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  taken.add(id);
  const name = call.name.slice(0, MAX_TOOL_NAME_CHARS) || 'unnamed';
  // A tool without parameters is often called with no argument text at all.
  if (!call.arguments.trim()) return { id, name, input: {} };
  try {
    return { id, name, input: JSON.parse(call.arguments) as JsonValue };
  } catch (error) {
    return { id, name, input: call.arguments, malformed: (error as Error).message };
  }
}

export async function runToolCall(verbs: VerbRegistry, call: ToolCall, context: VerbContext): Promise<VerbOutcome> {
  if (call.malformed !== undefined) {
    return { error: `The arguments are not valid JSON (${call.malformed}); send one JSON object matching ${call.name}'s input schema` };
  }
  const outcome = await verbs.run(call.name, call.input, context);
  return 'output' in outcome ? { output: durableOutput(outcome.output) } : outcome;
}

/** A tool may keep 256 KiB in the Log; past that its output is kept as truncated text. */
function durableOutput(output: JsonValue): JsonValue {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return Buffer.byteLength(text, 'utf8') <= MAX_TOOL_RESULT_BYTES ? output : boundDurableToolResult(text);
}
