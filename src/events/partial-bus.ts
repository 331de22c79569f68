/**
 * The in-process partial bus: what a turn or a run is doing right now — assistant text deltas,
 * cumulative usage, tool activity, workflow progress (spec/upstream/websocket-subscriptions.md,
 * "appendPartial"). The runtime publishes here and the WebSocket gateway forwards each partial to
 * the sockets subscribed at that moment. Partials are never stored and never replayed: a partial
 * published while nobody listens is gone, and the durable `append` that follows is what counts.
 */
import { Injectable, Logger, Module } from '@nestjs/common';
import type { RunPartialPatch, SessionPartialPatch } from '../protocol/ws.js';

export type PartialMessage =
  | { kind: 'session'; sessionId: string; partialId: string; patch: SessionPartialPatch }
  | { kind: 'run'; rootRunId: string; runId: string; partialId: string; patch: RunPartialPatch };

export type PartialListener = (partial: PartialMessage) => void;

@Injectable()
export class PartialBus {
  private readonly logger = new Logger('agents/ws');
  private readonly listeners = new Set<PartialListener>();

  publishSessionPartial(sessionId: string, partialId: string, patch: SessionPartialPatch): void {
    this.logger.debug(`publish partial sessions/${sessionId} ${describePatch(partialId, patch)}`);
    this.publish({ kind: 'session', sessionId, partialId, patch });
  }

  publishRunPartial(rootRunId: string, runId: string, partialId: string, patch: RunPartialPatch): void {
    this.logger.debug(`publish partial runs/${rootRunId} run=${runId} ${describePatch(partialId, patch)}`);
    this.publish({ kind: 'run', rootRunId, runId, partialId, patch });
  }

  /** Called synchronously for every partial published from now on; returns the unsubscribe. */
  listen(listener: PartialListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publish(partial: PartialMessage): void {
    if (this.listeners.size === 0) this.logger.debug('skip partial; no subscription (no WebSocket gateway in this process)');
    // A listener failing must not fail the turn that published: the partial is best-effort by design.
    for (const listener of this.listeners) {
      try {
        listener(partial);
      } catch (error) {
        this.logger.error(`A partial listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  }
}

/** The diagnostics upstream logs: sizes and phases, never the text itself. */
function describePatch(partialId: string, patch: SessionPartialPatch | RunPartialPatch): string {
  const parts = [`partialId=${partialId}`];
  if ('textDelta' in patch && patch.textDelta) parts.push(`textDeltaBytes=${Buffer.byteLength(patch.textDelta)}`);
  if ('done' in patch && patch.done) parts.push('done');
  if (patch.activity) parts.push(`activity=${patch.activity.phase}${patch.activity.toolName ? `:${patch.activity.toolName}` : ''}`);
  if (patch.usage) parts.push(`totalTokens=${patch.usage.total}`);
  if ('progress' in patch && patch.progress) parts.push(`progress=${patch.progress.fraction ?? ''}`);
  return parts.join(' ');
}

/** Import this wherever partials are published or consumed: Nest keeps one bus per application. */
@Module({ providers: [PartialBus], exports: [PartialBus] })
export class PartialBusModule {}
