/**
 * Feeds one generation of one projection from `$all`, after its checkpoint. Events are applied in
 * batches; each batch's rows and the checkpoint commit in one SQLite transaction, so a crash never
 * double-applies or skips. Every event — handled or not — moves the checkpoint, which is what lets
 * a command wait until a projection has passed the position of its own append.
 */
import type { EventLog, LogSubscription } from '../events/event-log.js';
import type { CatalogEvent } from '../events/catalog/upcast.js';
import { comparePositions, type Position } from '../events/store/position.js';
import type { Projection, ProjectionTx } from './projection.js';
import type { ReadModelDb } from './read-model-db.js';
import { GenerationSql } from './table-names.js';

const BATCH_SIZE = 2000;

export interface WorkerEvents {
  /** After every committed batch. */
  onCommit(worker: ProjectionWorker): void;
  /** The first time the worker has applied everything up to the head it was told about. */
  onCaughtUp(worker: ProjectionWorker): void;
  onFailure(worker: ProjectionWorker, error: unknown): void;
}

export class ProjectionWorker {
  readonly sql: GenerationSql;
  checkpoint: Position | null;
  caughtUp = false;
  /** Events of `$all` this worker has committed past since it started (handled or not). */
  processed = 0;
  private subscription: LogSubscription | null = null;
  private batch: CatalogEvent[] = [];
  private batchSeen = 0;
  private batchEnd: Position | null = null;
  private flushScheduled = false;
  private stopped = false;
  private readonly handles: ReadonlySet<string>;
  private readonly tx: ProjectionTx;

  constructor(
    readonly projection: Projection,
    readonly generation: number,
    checkpoint: Position | null,
    private readonly log: EventLog,
    private readonly readModels: ReadModelDb,
    private readonly events: WorkerEvents,
  ) {
    this.checkpoint = checkpoint;
    this.handles = new Set(projection.eventTypes);
    this.sql = new GenerationSql(readModels.db, projection.name, generation, Object.keys(projection.tables));
    const sql = this.sql;
    this.tx = {
      db: readModels.db,
      run: (text, ...params) => sql.run(text, ...params),
      get: (text, ...params) => sql.get(text, ...params),
      all: (text, ...params) => sql.all(text, ...params),
    };
  }

  start(): void {
    this.stopped = false;
    this.subscription = this.log.subscribeAll({ from: this.checkpoint ?? 'start' });
    void this.consume(this.subscription).catch((error: unknown) => this.fail(error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    this.subscription = null;
  }

  /** True once the worker has applied everything up to and including `position`. */
  hasPassed(position: Position): boolean {
    return this.checkpoint !== null && comparePositions(this.checkpoint, position) >= 0;
  }

  private async consume(subscription: LogSubscription): Promise<void> {
    for await (const message of subscription) {
      if (this.stopped) return;
      if (message.kind === 'caughtUp') {
        this.flush();
        if (!this.caughtUp && !this.stopped) {
          this.caughtUp = true;
          this.events.onCaughtUp(this);
        }
        continue;
      }
      if (this.handles.has(message.event.type)) this.batch.push(message.event);
      this.batchEnd = message.event.position;
      if (++this.batchSeen >= BATCH_SIZE) this.flush();
      else if (!this.flushScheduled) {
        // Runs once the subscription has nothing more queued: live events commit promptly, catch-up
        // reads (which never leave the microtask queue) commit in full batches.
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          if (!this.stopped) this.flushOrFail();
        });
      }
    }
  }

  private flushOrFail(): void {
    try {
      this.flush();
    } catch (error) {
      this.fail(error);
    }
  }

  private flush(): void {
    const end = this.batchEnd;
    if (end === null) return;
    const batch = this.batch;
    this.readModels.db.transaction(() => {
      for (const event of batch) {
        try {
          this.projection.apply(event, this.tx);
        } catch (error) {
          throw new ProjectionApplyError(this.projection.name, event, error);
        }
      }
      this.readModels.saveCheckpoint(this.projection.name, this.generation, end, batch.length);
    })();
    this.batch = [];
    this.batchEnd = null;
    this.checkpoint = end;
    this.processed += this.batchSeen;
    this.batchSeen = 0;
    this.events.onCommit(this);
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.batch = [];
    this.batchSeen = 0;
    this.batchEnd = null;
    void this.stop();
    this.events.onFailure(this, error);
  }
}

export class ProjectionApplyError extends Error {
  override name = 'ProjectionApplyError';
  constructor(projection: string, event: CatalogEvent, cause: unknown) {
    super(
      `Projection ${projection} failed on ${event.type} ${event.id} (${event.stream}@${event.revision}): ` +
        `${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
