/**
 * One model pass of a turn (spec/tools-and-verbs.md, "Tool lifecycle"): call the model, append its
 * text at the message's end with `meta`, then each tool call, its execution and its result; again,
 * until the model answers without calling a tool. The pass starts from the Log replayed and then
 * extends its messages with exactly what replay would rebuild from the events it appends, so a
 * resumed pass sends what the live one would have.
 */
import type OpenAI from 'openai';
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { addUsage } from '../../commands/runs/run-state.js';
import type { RuntimeLogDraft, RuntimeOrigin, SessionWriter } from '../../commands/sessions/session-writer.js';
import type { JsonObject } from '../../events/store/types.js';
import type { AgentDefinition } from '../../protocol/agents.js';
import type { AgentRunUsage } from '../../protocol/sessions.js';
import type { VerbRegistry } from '../../verbs/registry.js';
import type { ResolvedModel } from '../model/resolve-model.js';
import type { ClaimedRun } from '../run-executor.js';
import { assistantMessageFor, toolMessageFor } from '../transcript/replay.js';
import { modelFailure, type ModelFailure } from './model-errors.js';
import { streamModelReply, type ModelReply } from './model-stream.js';
import type { PartialPatch, PartialSink } from './partial-sink.js';
import type { SessionTitles } from './session-title.js';
import { runToolCall, toolCallOf, type ToolCall } from './tool-call.js';
import { messageId, toolCallEventId, toolResultEventId } from './turn-ids.js';
import type { TurnLog } from './turn-log.js';
import { passMessages } from './turn-prompt.js';

/** A pass that keeps calling tools this long is looping, not working. */
export const MAX_MODEL_CALLS_PER_PASS = 100;

export interface TurnServices {
  writer: SessionWriter;
  verbs: VerbRegistry;
  partials: PartialSink;
  titles: SessionTitles;
}

/** One execution of a run: what every pass of it shares. */
export interface Turn {
  run: ClaimedRun;
  origin: RuntimeOrigin;
  signal: AbortSignal;
  definition: AgentDefinition;
  model: ResolvedModel;
  client: OpenAI;
  /** This execution's model usage so far. */
  usage: AgentRunUsage;
}

export class ModelCallFailed extends Error {
  override name = 'ModelCallFailed';
  constructor(readonly failure: ModelFailure) {
    super(failure.error.message);
  }
}

export class PassLimitError extends Error {
  override name = 'PassLimitError';
}

/** Runs the pass to the model's final answer; returns that answer's event id when it said something. */
export async function runPass(services: TurnServices, turn: Turn, turnLog: TurnLog): Promise<string | undefined> {
  const { run, signal, model } = turn;
  const passSeq = turnLog.session!.lastSeq;
  const messages = passMessages(turn.definition, turnLog, run);
  const tools = services.verbs.providerTools();
  const takenCallIds = new Set(turnLog.entries.flatMap(({ event }) => (event.type === 'tool_call' ? [event.id] : [])));
  const append = async (drafts: RuntimeLogDraft[]) => {
    signal.throwIfAborted();
    if (drafts.length) await services.writer.appendRuntime(run.sessionId, drafts, turn.origin);
  };

  for (let step = 0; step < MAX_MODEL_CALLS_PER_PASS; step++) {
    const partialId = messageId(run.runId, passSeq, step);
    const publish = (patch: PartialPatch) => services.partials.publish(run.sessionId, partialId, patch);
    publish({ activity: { phase: 'thinking' } });
    const started = Date.now();
    const reply = await callModel(turn, messages, tools, publish);
    const durationMs = Date.now() - started;
    turn.usage = addUsage(turn.usage, reply.usage);
    publish({ usage: turn.usage });

    const text = reply.text.trim() ? reply.text : null;
    const calls = reply.toolCalls.map((call) => toolCallOf(call, takenCallIds));
    const drafts: RuntimeLogDraft[] = [];
    if (text !== null) {
      const meta = { model: model.model, provider: model.provider, usage: { ...reply.usage }, durationMs };
      drafts.push({ id: partialId, type: 'message', actor: 'agent', data: { role: 'assistant', content: text, meta } });
    }
    for (const call of calls) {
      drafts.push({ id: toolCallEventId(run.runId, call.id), type: 'tool_call', actor: 'agent', data: { id: call.id, name: call.name, input: call.input } });
    }
    if (!calls.length) publish({ activity: { phase: 'finalizing' } });
    await append(drafts);
    publish({ done: true });
    if (!calls.length) return text === null ? undefined : partialId;

    messages.push(assistantMessageFor(text, calls));
    // The tool phase belongs to the next model call's partial: this message is done.
    const next = messageId(run.runId, passSeq, step + 1);
    for (const call of calls) {
      services.partials.publish(run.sessionId, next, { activity: { phase: 'tool', toolName: call.name, toolCallId: call.id } });
      const outcome = await executeCall(services, turn, call);
      await append([{ id: toolResultEventId(run.runId, call.id), type: 'tool_result', actor: 'agent', data: outcome }]);
      messages.push(toolMessageFor(call.id, outcome));
    }
  }
  throw new PassLimitError(`The agent called the model ${MAX_MODEL_CALLS_PER_PASS} times in one turn without finishing; the turn was stopped there`);
}

async function callModel(
  turn: Turn,
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionFunctionTool[],
  publish: (patch: PartialPatch) => void,
): Promise<ModelReply> {
  const { model } = turn;
  let responding = false;
  try {
    return await streamModelReply(
      turn.client,
      {
        model: model.model,
        messages,
        tools,
        ...(model.reasoningLevel === undefined ? {} : { reasoningLevel: model.reasoningLevel }),
        ...(model.modelDefaults === undefined ? {} : { modelDefaults: model.modelDefaults }),
      },
      {
        signal: turn.signal,
        onText: (textDelta) => {
          publish(responding ? { textDelta } : { textDelta, activity: { phase: 'responding' } });
          responding = true;
        },
      },
    );
  } catch (error) {
    publish({ done: true });
    if (turn.signal.aborted) throw error;
    throw new ModelCallFailed(modelFailure(error, model));
  }
}

/** The call's tool_result payload: output or error, and how long it took. */
async function executeCall(services: TurnServices, turn: Turn, call: ToolCall): Promise<JsonObject> {
  const { run, origin, signal } = turn;
  const started = Date.now();
  const outcome = await runToolCall(services.verbs, call, {
    sessionId: run.sessionId,
    runId: run.runId,
    toolCallId: call.id,
    signal,
    renameSession: (title) => services.titles.rename(run.sessionId, title, origin, 'agent', call.id),
  });
  return { toolCallId: call.id, name: call.name, ...outcome, meta: { durationMs: Date.now() - started } };
}
