/**
 * Runs every projection: one serving generation each, answering reads, and — when a projection's
 * version changed or a rebuild was asked for — a second generation built from the start of the log
 * beside it, swapped in atomically once it has caught up. Also answers "has every projection that
 * cares passed this position?" for read-your-writes.
 *
 * After a version change the old generation keeps answering reads but is no longer fed: only the
 * new definition's code exists, and running it against the old tables would mix two versions. Until
 * the swap, read-your-writes for that projection waits on the new generation.
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
  /** The serving generation is from an older version and no longer fed until the rebuild swaps. */
  frozen: boolean;
  rebuilding: boolean;
  failure: string | null;
  rebuildFailure: string | null;
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
  /** The serving generation is of an older version: it answers reads but applies nothing. */
  frozen: boolean;
  onRebuilt: { resolve(): void; reject(error: unknown): void }[];
}

const FIRST_RETRY_DELAY_MS = 1000;
const MAX_RETRY_DELAY_MS = 60_000;

export class ProjectionService {
  private readonly slots = new Map<string, Slot>();
  private readonly waiters = new Set<Waiter>();
  private readonly progressListeners = new Set<(progress: RebuildProgress) => void>();
  private readonly retryDelays = new Map<ProjectionWorker, { delayMs: number; timer: NodeJS.Timeout | null }>();
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

  /** Starts serving workers, and the rebuild of every projection whose version changed. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const projection of this.projections) this.startSlot(projection);
  }

  async stop(): Promise<void> {
    this.started = false;
    // Taken before any await: a swap finishing meanwhile must not leave its worker running.
    const workers = [...this.slots.values()].flatMap((s) => (s.building ? [s.serving, s.building] : [s.serving]));
    const rebuilds = [...this.slots.values()].flatMap((s) => s.onRebuilt.splice(0));
    for (const retry of this.retryDelays.values()) if (retry.timer) clearTimeout(retry.timer);
    this.retryDelays.clear();
    this.slots.clear();
    await Promise.all(workers.map((w) => w.stop()));
    const stopped = new ProjectionFailedError('Projections stopped before reaching the awaited position');
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(stopped);
    }
    this.waiters.clear();
    for (const rebuild of rebuilds) rebuild.reject(new ProjectionFailedError('Projections stopped before the rebuild finished'));
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
          const behind = names.filter((n) => !this.passed(position, [n]));
          const rebuilding = behind.filter((n) => this.slots.get(n)?.frozen);
          reject(
            new ProjectionTimeoutError(
              `Read models did not reach position ${serializePosition(position)} within ${timeoutMs} ms ` +
                `(still behind: ${behind.join(', ')}` +
                `${rebuilding.length ? `; being rebuilt after a version change: ${rebuilding.join(', ')}` : ''}); ` +
                'the write is durable and will appear shortly',
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
      frozen: slot.frozen,
      rebuilding: slot.building !== null,
      failure: describe(slot.serving.failure),
      rebuildFailure: describe(slot.building?.failure ?? null),
    }));
  }

  onProgress(listener: (progress: RebuildProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /**
   * Rebuilds one projection from the start of the log into fresh tables, then swaps them in. Rejects
   * when the rebuild fails (a running server keeps retrying it in the background).
   */
  rebuild(name: string): Promise<void> {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) {
      return Promise.reject(
        new Error(`Unknown projection "${name}"; projections are: ${this.projections.map((p) => p.name).join(', ')}`),
      );
    }
    // Offline (the CLI), the serving generation is left idle: only the new one reads the log.
    const slot = this.slots.get(name) ?? this.makeSlot(projection).slot;
    this.started = true;
    return new Promise((resolve, reject) => {
      slot.onRebuilt.push({ resolve, reject });
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
      frozen: servingRow.version !== projection.version,
      onRebuilt: [],
    };
    this.slots.set(projection.name, slot);
    return { slot, rows, servingRow };
  }

  private startSlot(projection: Projection): void {
    const { slot, rows } = this.makeSlot(projection);
    if (!slot.frozen) slot.serving.start();
    const buildingRow = rows.find((r) => r.state === 'building');
    // A rebuild interrupted at this same version resumes from its checkpoint; any other is stale.
    const resumable = buildingRow && buildingRow.version === projection.version && slot.frozen ? buildingRow : null;
    if (buildingRow && !resumable) this.readModels.discard(projection, buildingRow.generation);
    if (slot.frozen) {
      this.logger.log(`Projection ${projection.name}: version changed to ${projection.version}, rebuilding from the log`);
      this.beginBuilding(
        slot,
        resumable?.generation ?? this.readModels.createGeneration(projection, 'building'),
        resumable?.checkpoint ?? null,
      );
    }
  }

  private beginBuilding(slot: Slot, generation: number, checkpoint: Position | null): void {
    slot.building = this.worker(slot.projection, generation, checkpoint, true);
    slot.building.start();
  }

  private worker(projection: Projection, generation: number, checkpoint: Position | null, rebuilding = false): ProjectionWorker {
    const events: WorkerEvents = {
      onCommit: (worker) => {
        const slot = this.slots.get(projection.name);
        if (!slot) return;
        worker.failure = null;
        this.retryDelays.delete(worker);
        if (worker === slot.building) {
          for (const listener of this.progressListeners) {
            listener({ name: projection.name, processed: worker.processed, checkpoint: worker.checkpoint });
          }
          if (worker.caughtUp) this.trySwap(slot);
        }
        this.settleWaiters();
      },
      onCaughtUp: (worker) => {
        const slot = this.slots.get(projection.name);
        if (slot && worker === slot.building) this.trySwap(slot);
      },
      onFailure: (worker, error) => this.handleFailure(projection.name, worker, error),
    };
    return new ProjectionWorker(projection, generation, checkpoint, this.log, this.readModels, events, rebuilding);
  }

  /**
   * The worker read-your-writes depends on. While the serving generation is frozen, reads cannot show
   * a new write until the rebuilt generation is swapped in, so waits settle only after the swap — and
   * fail if the rebuild does.
   */
  private current(name: string): ProjectionWorker | undefined {
    const slot = this.slots.get(name);
    return slot?.frozen ? (slot.building ?? undefined) : slot?.serving;
  }

  private passed(position: Position, names: readonly string[]): boolean {
    return names.every((n) => {
      const slot = this.slots.get(n);
      return slot !== undefined && !slot.frozen && slot.serving.hasPassed(position);
    });
  }

  /**
   * Swaps once the new generation has caught up and passed everything the old one applied, so a
   * read never goes back in time.
   */
  private trySwap(slot: Slot): void {
    const built = slot.building;
    if (!this.started || !built?.caughtUp) return;
    const old = slot.serving;
    if (!slot.frozen && old.checkpoint && !built.hasPassed(old.checkpoint)) return;
    try {
      this.readModels.promote(slot.projection, built.generation);
    } catch (error) {
      void built.stop();
      this.handleFailure(slot.projection.name, built, error);
      return;
    }
    slot.serving = built;
    slot.building = null;
    slot.frozen = false;
    const rebuilt = slot.onRebuilt.splice(0);
    this.logger.log(`Projection ${slot.projection.name}: generation ${built.generation} now serving`);
    this.settleWaiters();
    void old.stop().then(() => {
      for (const waiter of rebuilt) waiter.resolve();
    });
  }

  private handleFailure(name: string, worker: ProjectionWorker, error: unknown): void {
    const slot = this.slots.get(name);
    if (!slot || !this.started) return;
    this.logger.error(`Projection ${name} (generation ${worker.generation}) failed: ${(error as Error).stack ?? error}`);
    worker.failure = error;
    const failed = new ProjectionFailedError(`Projection ${name} failed: ${(error as Error).message ?? error}`);
    if (worker === this.current(name)) {
      for (const waiter of [...this.waiters]) {
        if (waiter.names.includes(name)) {
          this.waiters.delete(waiter);
          clearTimeout(waiter.timer);
          waiter.reject(failed);
        }
      }
    }
    if (worker === slot.building) for (const waiter of slot.onRebuilt.splice(0)) waiter.reject(failed);
    // Retry from the last committed checkpoint with exponential backoff: a transient cause clears,
    // a deterministic bug keeps reporting itself in the log and in status().
    const retry = this.retryDelays.get(worker) ?? { delayMs: FIRST_RETRY_DELAY_MS, timer: null };
    retry.timer = setTimeout(() => {
      retry.timer = null;
      if (this.started && (worker === slot.serving || worker === slot.building)) worker.start();
    }, retry.delayMs);
    retry.timer.unref();
    retry.delayMs = Math.min(retry.delayMs * 2, MAX_RETRY_DELAY_MS);
    this.retryDelays.set(worker, retry);
  }

  private failedAmong(names: readonly string[]): ProjectionFailedError | null {
    for (const n of names) {
      const failure = this.current(n)?.failure;
      if (failure) return new ProjectionFailedError(`Projection ${n} failed: ${describe(failure)}`);
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

function describe(failure: unknown): string | null {
  if (failure === null || failure === undefined) return null;
  return failure instanceof Error ? failure.message : String(failure);
}
