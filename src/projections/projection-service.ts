/**
 * Runs every projection: one serving generation each, answering reads, and — when a projection's
 * version changed or a rebuild was asked for — a second generation built from the start of the log
 * beside it, swapped in atomically once it has caught up. Also answers "has every projection that
 * cares passed this position?" for read-your-writes.
 */
import type { EventLog } from '../events/event-log.js';
import { serializePosition, type Position } from '../events/store/position.js';
import type { Projection } from './projection.js';
import type { GenerationRow, ReadModelDb } from './read-model-db.js';
import { checkProjectionName, GenerationSql } from './table-names.js';
import { ProjectionWorker, type WorkerEvents } from './projection-worker.js';

export class ProjectionTimeoutError extends Error {
  override name = 'ProjectionTimeoutError';
}

export class ProjectionFailedError extends Error {
  override name = 'ProjectionFailedError';
}

export interface ProjectionStatus {
  name: string;
  version: number;
  generation: number;
  checkpoint: string | null;
  caughtUp: boolean;
  rebuilding: boolean;
  failure: string | null;
}

interface Waiter {
  position: Position;
  names: readonly string[];
  resolve(): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

export interface RebuildProgress {
  name: string;
  processed: number;
  checkpoint: Position | null;
}

interface Slot {
  projection: Projection;
  serving: ProjectionWorker;
  building: ProjectionWorker | null;
  failure: unknown;
  retryDelayMs: number;
  retryTimer: NodeJS.Timeout | null;
  onRebuilt: (() => void)[];
}

const MAX_RETRY_DELAY_MS = 60_000;

export class ProjectionService {
  private readonly slots = new Map<string, Slot>();
  private waiters = new Set<Waiter>();
  private progressListeners = new Set<(progress: RebuildProgress) => void>();
  private started = false;

  constructor(
    private readonly log: EventLog,
    private readonly readModels: ReadModelDb,
    private readonly projections: readonly Projection[],
    private readonly logger: Pick<Console, 'error' | 'log'> = console,
  ) {
    const seen = new Set<string>();
    for (const p of projections) {
      checkProjectionName('Projection', p.name);
      for (const table of Object.keys(p.tables)) checkProjectionName(`Table of ${p.name}`, table);
      if (seen.has(p.name)) throw new Error(`Projection ${p.name} is registered twice`);
      seen.add(p.name);
    }
  }

  /**
   * Starts serving workers; a projection whose version changed keeps serving its old generation while
   * the new one is built.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const projection of this.projections) this.startSlot(projection);
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const slot of this.slots.values()) {
      if (slot.retryTimer) clearTimeout(slot.retryTimer);
      await slot.serving.stop();
      await slot.building?.stop();
    }
    this.slots.clear();
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new ProjectionFailedError('Projections stopped before reaching the awaited position'));
    }
    this.waiters.clear();
  }

  /**
   * Resolves once every projection that handles one of `eventTypes` (all of them when omitted) has
   * applied the log up to `position`.
   */
  waitFor(position: Position, options: { eventTypes?: readonly string[]; timeoutMs?: number } = {}): Promise<void> {
    const names = this.projections
      .filter((p) => !options.eventTypes || p.eventTypes.some((t) => options.eventTypes!.includes(t)))
      .map((p) => p.name);
    if (this.passed(position, names)) return Promise.resolve();
    const failed = this.failedAmong(names);
    if (failed) return Promise.reject(failed);
    const timeoutMs = options.timeoutMs ?? 5_000;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        names,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          const behind = names.filter((n) => !this.slots.get(n)?.serving.hasPassed(position));
          reject(
            new ProjectionTimeoutError(
              `Read models did not reach position ${serializePosition(position)} within ${timeoutMs} ms ` +
                `(still behind: ${behind.join(', ')}); the write is durable and will appear shortly`,
            ),
          );
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** SQL over the serving generation's tables of one projection (`{table}` placeholders). */
  reader(name: string): GenerationSql {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`Projection ${name} is not running; running: ${[...this.slots.keys()].join(', ')}`);
    return slot.serving.sql;
  }

  status(): ProjectionStatus[] {
    return [...this.slots.values()].map((slot) => ({
      name: slot.projection.name,
      version: slot.projection.version,
      generation: slot.serving.generation,
      checkpoint: slot.serving.checkpoint ? serializePosition(slot.serving.checkpoint) : null,
      caughtUp: slot.serving.caughtUp,
      rebuilding: slot.building !== null,
      failure: slot.failure ? String((slot.failure as Error).message ?? slot.failure) : null,
    }));
  }

  onProgress(listener: (progress: RebuildProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** Rebuilds one projection from the start of the log into fresh tables, then swaps them in. */
  rebuild(name: string): Promise<void> {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) {
      return Promise.reject(
        new Error(`Unknown projection "${name}"; projections are: ${this.projections.map((p) => p.name).join(', ')}`),
      );
    }
    // Offline (the CLI), the serving generation is left idle: only the new one reads the log.
    const running = this.slots.get(name);
    const slot = running ?? this.makeSlot(projection).slot;
    this.started = true;
    return new Promise((resolve) => {
      slot.onRebuilt.push(resolve);
      // A rebuild already under way is from the start of the log too: wait for it.
      if (!slot.building) this.beginBuilding(slot, this.readModels.createGeneration(projection, 'building'), null);
    });
  }

  private makeSlot(projection: Projection): { slot: Slot; rows: GenerationRow[]; servingRow: GenerationRow } {
    let rows = this.readModels.generations(projection.name);
    let servingRow = rows.find((r) => r.state === 'serving');
    if (!servingRow) {
      this.readModels.createGeneration(projection, 'serving');
      rows = this.readModels.generations(projection.name);
      servingRow = rows.find((r) => r.state === 'serving')!;
    }
    const slot: Slot = {
      projection,
      serving: this.worker(projection, servingRow.generation, servingRow.checkpoint),
      building: null,
      failure: null,
      retryDelayMs: 1000,
      retryTimer: null,
      onRebuilt: [],
    };
    this.slots.set(projection.name, slot);
    return { slot, rows, servingRow };
  }

  private startSlot(projection: Projection): Slot {
    const { slot, rows, servingRow } = this.makeSlot(projection);
    slot.serving.start();
    const buildingRow = rows.find((r) => r.state === 'building');
    if (buildingRow && buildingRow.version !== projection.version) {
      this.readModels.discard(projection, buildingRow.generation);
    }
    if (servingRow.version !== projection.version) {
      // Resume an interrupted rebuild of this same version rather than starting it over.
      const resumable = buildingRow?.version === projection.version ? buildingRow : null;
      this.logger.log(
        `Projection ${projection.name}: version ${servingRow.version} → ${projection.version}, rebuilding from the log`,
      );
      this.beginBuilding(
        slot,
        resumable?.generation ?? this.readModels.createGeneration(projection, 'building'),
        resumable?.checkpoint ?? null,
      );
    } else if (buildingRow && buildingRow.version === projection.version) {
      this.readModels.discard(projection, buildingRow.generation);
    }
    return slot;
  }

  private beginBuilding(slot: Slot, generation: number, checkpoint: Position | null): void {
    slot.building = this.worker(slot.projection, generation, checkpoint, true);
    slot.building.start();
  }

  private worker(projection: Projection, generation: number, checkpoint: Position | null, rebuilding = false): ProjectionWorker {
    const events: WorkerEvents = {
      onCommit: (worker) => {
        const slot = this.slots.get(projection.name);
        if (slot && worker === slot.building) {
          for (const listener of this.progressListeners) {
            listener({ name: projection.name, processed: worker.processed, checkpoint: worker.checkpoint });
          }
        }
        if (slot && worker === slot.serving) {
          slot.failure = null;
          slot.retryDelayMs = 1000;
          this.settleWaiters();
        }
      },
      onCaughtUp: (worker) => {
        const slot = this.slots.get(projection.name);
        if (slot && worker === slot.building) void this.swap(slot, worker);
      },
      onFailure: (worker, error) => this.handleFailure(projection.name, worker, error),
    };
    return new ProjectionWorker(projection, generation, checkpoint, this.log, this.readModels, events, rebuilding);
  }

  private async swap(slot: Slot, built: ProjectionWorker): Promise<void> {
    const old = slot.serving;
    this.readModels.promote(slot.projection, built.generation);
    slot.serving = built;
    slot.building = null;
    await old.stop();
    this.logger.log(`Projection ${slot.projection.name}: generation ${built.generation} now serving`);
    this.settleWaiters();
    for (const resolve of slot.onRebuilt.splice(0)) resolve();
  }

  private handleFailure(name: string, worker: ProjectionWorker, error: unknown): void {
    const slot = this.slots.get(name);
    if (!slot || !this.started) return;
    this.logger.error(`Projection ${name} (generation ${worker.generation}) failed: ${(error as Error).stack ?? error}`);
    slot.failure = error;
    if (worker === slot.serving) {
      for (const waiter of [...this.waiters]) {
        if (waiter.names.includes(name)) {
          this.waiters.delete(waiter);
          clearTimeout(waiter.timer);
          waiter.reject(new ProjectionFailedError(`Projection ${name} failed: ${(error as Error).message ?? error}`));
        }
      }
    }
    // Retry from the last committed checkpoint with exponential backoff: a transient cause clears,
    // a deterministic bug keeps reporting itself in the log and in status().
    slot.retryTimer = setTimeout(() => {
      slot.retryTimer = null;
      if (this.started && (worker === slot.serving || worker === slot.building)) worker.start();
    }, slot.retryDelayMs);
    slot.retryTimer.unref();
    slot.retryDelayMs = Math.min(slot.retryDelayMs * 2, MAX_RETRY_DELAY_MS);
  }

  private passed(position: Position, names: readonly string[]): boolean {
    return names.every((n) => this.slots.get(n)?.serving.hasPassed(position));
  }

  private failedAmong(names: readonly string[]): ProjectionFailedError | null {
    for (const n of names) {
      const failure = this.slots.get(n)?.failure;
      if (failure) return new ProjectionFailedError(`Projection ${n} failed: ${(failure as Error).message ?? failure}`);
    }
    return null;
  }

  private settleWaiters(): void {
    for (const waiter of [...this.waiters]) {
      if (this.passed(waiter.position, waiter.names)) {
        this.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve();
      }
    }
  }
}
