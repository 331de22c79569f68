/**
 * The agent turn: the RunExecutor for model runs. It reads where the run stands from the session's
 * Log, repairs what a crash left (calls without results), runs model passes until the model answers,
 * hands the turn back while plan steps are left open (at most MAX_RUN_CONTINUATIONS times), names
 * an untitled session after its first exchange, and reports one outcome. It never writes the run's
 * stream: the dispatcher records the outcome.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { loadAgent } from '../../commands/agents/agent-stream.js';
import { SessionGoneError, SessionWriter, type RuntimeLogDraft } from '../../commands/sessions/session-writer.js';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import type { AgentRunUsage } from '../../protocol/sessions.js';
import { SecretStore } from '../../secrets/secret-store.js';
import { VerbRegistry } from '../../verbs/registry.js';
import { providerClient } from '../model/provider-client.js';
import { ModelSetupError, resolveModel } from '../model/resolve-model.js';
import type { ClaimedRun, RunExecutor, RunFailure, RunOutcome } from '../run-executor.js';
import { MODEL_IDLE_TIMEOUT_MS, NO_USAGE } from './model-stream.js';
import { continuationPrompt, MAX_RUN_CONTINUATIONS, openObligations, unmetObligationsNotice } from './obligations.js';
import { PARTIAL_SINK, type PartialSink } from './partial-sink.js';
import { runProgress, type RunProgress } from './run-progress.js';
import { SessionTitles } from './session-title.js';
import { continuationId, messageId, toolResultEventId, unmetObligationsId } from './turn-ids.js';
import { readTurnLog, type TurnLog } from './turn-log.js';
import { ModelCallFailed, PassLimitError, runPass, type Turn, type TurnServices } from './turn-pass.js';

/**
 * Sessions whose Log this process keeps, to read on from at the next turn instead of from the start:
 * the most recently run ones. Each holds its whole Log in memory, hence not many.
 */
const CACHED_LOGS = 128;

/**
 * Chosen over running the call again: its side effects may or may not have happened, and only the
 * model, reading this, can judge whether repeating it is safe (upstream does the same).
 */
export const INTERRUPTED_CALL_ERROR =
  'Interrupted before it finished (the server stopped or lost this run); whether its side effects happened is unknown. Verify the state before retrying.';

@Injectable()
export class AgentTurnExecutor implements RunExecutor {
  private readonly logger = new Logger('AgentTurn');
  private readonly services: TurnServices;
  private readonly logs = new Map<string, TurnLog>();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    writer: SessionWriter,
    private readonly secrets: SecretStore,
    verbs: VerbRegistry,
    titles: SessionTitles,
    @Inject(PARTIAL_SINK) partials: PartialSink,
  ) {
    this.services = { writer, verbs, titles, partials };
  }

  async execute(run: ClaimedRun, signal: AbortSignal): Promise<RunOutcome> {
    const usage = { spent: NO_USAGE };
    try {
      return await this.turn(run, signal, usage);
    } catch (error) {
      return this.failure(run, error, signal, usage.spent);
    }
  }

  private async turn(run: ClaimedRun, signal: AbortSignal, usage: { spent: AgentRunUsage }): Promise<RunOutcome> {
    let turnLog = await this.liveLog(run);
    const { agent } = await loadAgent(this.log, run.agentId);
    if (!agent || agent.deleted) return failed({ code: 'agent_gone', message: `Agent ${run.agentId} no longer exists; the turn did not run` }, false);
    const model = await resolveModel(this.log, this.secrets, run.ownerAccountId, agent.definition);
    const turn: Turn = {
      run,
      origin: { runId: run.runId, rootRunId: run.rootRunId },
      signal,
      definition: agent.definition,
      model,
      client: providerClient(model.endpoint, 'chat', MODEL_IDLE_TIMEOUT_MS),
      usage: NO_USAGE,
    };
    const progress = runProgress(turnLog, run.runId);
    if (progress.ended) return succeeded(progress.lastAnswerId, openObligations(turnLog.entries), NO_USAGE);
    if (progress.interrupted.length) turnLog = await this.answerInterrupted(turn, progress.interrupted);
    let answerId = progress.lastAnswerId;
    let continuations = progress.continuations;
    let passEnded = progress.passEnded;
    if (!passEnded) this.services.partials.publish(run.sessionId, messageId(run.runId, turnLog.session!.lastSeq, 0), { activity: { phase: 'starting' } });
    for (;;) {
      if (!passEnded) {
        try {
          answerId = (await runPass(this.services, turn, turnLog)) ?? answerId;
        } finally {
          usage.spent = turn.usage;
        }
        turnLog = await this.liveLog(run);
      }
      passEnded = false;
      const obligations = openObligations(turnLog.entries);
      if (!obligations.length) {
        await this.title(turn, turnLog);
        return succeeded(answerId, [], turn.usage);
      }
      if (continuations < MAX_RUN_CONTINUATIONS) {
        continuations++;
        await this.notice(turn, continuationId(run.runId, continuations), continuationPrompt(obligations));
        turnLog = await this.liveLog(run);
        continue;
      }
      await this.notice(turn, unmetObligationsId(run.runId), unmetObligationsNotice(obligations));
      await this.title(turn, turnLog);
      return succeeded(answerId, obligations, turn.usage);
    }
  }

  /** A result for every call a crash left without one, so the model sees each call answered. */
  private async answerInterrupted(turn: Turn, calls: RunProgress['interrupted']): Promise<TurnLog> {
    const drafts: RuntimeLogDraft[] = calls.map(({ id, name }) => ({
      id: toolResultEventId(turn.run.runId, id),
      type: 'tool_result',
      actor: 'system',
      data: { toolCallId: id, name, error: INTERRUPTED_CALL_ERROR },
    }));
    await this.services.writer.appendRuntime(turn.run.sessionId, drafts, turn.origin);
    return this.liveLog(turn.run);
  }

  /** The session's Log as the store holds it now, read on from this process's last read of it. */
  private async liveLog(run: ClaimedRun): Promise<TurnLog> {
    const cached = this.logs.get(run.sessionId);
    this.logs.delete(run.sessionId);
    const turnLog = await readTurnLog(this.log, run.sessionId, cached);
    if (!turnLog.session) throw new SessionGoneError(run.sessionId);
    this.logs.set(run.sessionId, turnLog);
    if (this.logs.size > CACHED_LOGS) this.logs.delete(this.logs.keys().next().value!);
    return turnLog;
  }

  /** Runtime-authored words to the agent: actor system, read by the model as a user message. */
  private async notice(turn: Turn, id: string, content: string): Promise<void> {
    turn.signal.throwIfAborted();
    await this.services.writer.appendRuntime(turn.run.sessionId, [{ id, type: 'message', actor: 'system', data: { role: 'user', content } }], turn.origin);
  }

  /** A title is a nicety: failing to get one never fails the turn that answered. */
  private async title(turn: Turn, turnLog: TurnLog): Promise<void> {
    try {
      await this.services.titles.autoTitle(turn.client, turn.model, turnLog, turn.origin, turn.signal);
    } catch (error) {
      if (turn.signal.aborted || error instanceof SessionGoneError) throw error;
      this.logger.warn(`Session ${turn.run.sessionId} was not titled: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private failure(run: ClaimedRun, error: unknown, signal: AbortSignal, usage: AgentRunUsage): RunOutcome {
    if (signal.aborted) return failed({ code: 'aborted', message: 'The turn was stopped before it finished' }, false, usage);
    if (error instanceof SessionGoneError) return failed({ code: 'session_gone', message: `Session ${run.sessionId} was deleted; the turn stopped` }, false, usage);
    if (error instanceof ModelSetupError) return failed({ code: error.code, message: error.message }, false, usage);
    if (error instanceof ModelCallFailed) return failed(error.failure.error, error.failure.retryable, usage);
    if (error instanceof PassLimitError) return failed({ code: 'turn_limit', message: error.message }, false, usage);
    this.logger.error(`Run ${run.runId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return failed({ code: 'internal_error', message: 'The turn failed on an internal error; the server log has the details' }, true, usage);
  }
}

function succeeded(assistantEventId: string | undefined, unmet: ReturnType<typeof openObligations>, usage: AgentRunUsage): RunOutcome {
  return {
    status: 'succeeded',
    usage,
    ...(assistantEventId ? { assistantEventId } : {}),
    ...(unmet.length ? { output: { unmetObligations: unmet.map((o) => ({ kind: o.kind, steps: [...o.steps] })) } } : {}),
  };
}

function failed(error: RunFailure, retryable: boolean, usage?: AgentRunUsage): RunOutcome {
  return { status: 'failed', error, retryable, ...(usage ? { usage } : {}) };
}
