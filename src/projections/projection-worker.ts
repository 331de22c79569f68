/**
 * Feeds one generation of one projection from `$all`, after its checkpoint. Events are applied in
 * batches; each batch's rows and the checkpoint commit in one SQLite transaction, so a crash never
 * double-applies or skips. Every event — handled or not — moves the checkpoint, which is what lets
 * a command wait until a projection has passed the position of its own append.
 *
 * A generation rebuilt from the log for a `writeOnly` projection is pipelined: this thread reads the
 * log and runs `apply` against a recording tx, and a writer thread commits the recorded batches, so
 * reading and writing use both cores. Once caught up the writer thread ends and batches commit here.
 */
import type { EventLog, LogSubscription } from '../events/event-log.js';
import type { CatalogEvent } from '../events/catalog/upcast.js';
import { comparePositions, type Position } from '../events/store/position.js';
import type { Projection, ProjectionTx } from './projection.js';
import type { ReadModelDb } from './read-model-db.js';
import { RebuildWriter } from './rebuild-writer.js';
import { RecordingTx } from './recording-tx.js';
import { GenerationSql } from './table-names.js';

const BATCH_SIZE = 2000;
/** Batches handed to the writer thread and not yet committed, before reading waits. */
const MAX_IN_FLIGHT = 2;

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
  /** The last failure, until the next successful commit. */
  failure: unknown = null;
  private subscription: LogSubscription | null = null;
  private batch: CatalogEvent[] = [];
  private batchSeen = 0;
  private batchEnd: Position | null = null;
  private flushScheduled = false;
  private stopped = false;
  private readonly handles: ReadonlySet<string>;
  private readonly tx: ProjectionTx;
  private writer: { thread: RebuildWriter; tx: RecordingTx; inFlight: Promise<void>[] } | null = null;

  constructor(
    readonly projection: Projection,
    readonly generation: number,
    checkpoint: Position | null,
    private readonly log: EventLog,
    private readonly readModels: ReadModelDb,
    private readonly events: WorkerEvents,
    /** Rebuilding from the log: pipeline the writes if the projection allows it. */
    private readonly rebuilding = false,
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
    if (this.rebuilding && this.projection.writeOnly && !this.caughtUp && this.readModels.path !== ':memory:') {
      const thread = new RebuildWriter({
        path: this.readModels.path,
        projection: this.projection.name,
        generation: this.generation,
      });
      this.writer = { thread, tx: new RecordingTx(this.sql), inFlight: [] };
    }
    this.subscription = this.log.subscribeAll({ from: this.checkpoint ?? 'start' });
    void this.consume(this.subscription).catch((error: unknown) => this.fail(error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    this.subscription = null;
    const writer = this.writer;
    this.writer = null;
    await writer?.thread.terminate();
  }

  /** True once the worker has applied everything up to and including `position`. */
  hasPassed(position: Position): boolean {
    return this.checkpoint !== null && comparePositions(this.checkpoint, position) >= 0;
  }

  private async consume(subscription: LogSubscription): Promise<void> {
    for await (const message of subscription) {
      if (this.stopped) return;
      if (message.kind === 'caughtUp') {
        await this.flush();
        if (!this.caughtUp && !this.stopped) {
          await this.endPipeline();
          this.caughtUp = true;
          this.events.onCaughtUp(this);
        }
        continue;
      }
      if (this.handles.has(message.event.type)) this.batch.push(message.event);
      this.batchEnd = message.event.position;
      if (++this.batchSeen >= BATCH_SIZE) await this.flush();
      else if (!this.flushScheduled) {
        // Runs once the subscription has nothing more queued: live events commit promptly, catch-up
        // reads (which never leave the microtask queue) commit in full batches.
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          if (!this.stopped) this.flush().catch((error: unknown) => this.fail(error));
        });
      }
    }
  }

  /**
   * Commits the batch here, or hands it to the writer thread (waiting only when it is behind). Async
   * so that a throwing `apply` always surfaces as a rejection, whichever path called it.
   */
  private async flush(): Promise<void> {
    const end = this.batchEnd;
    if (end === null) return;
    const batch = this.batch;
    const seen = this.batchSeen;
    this.batch = [];
    this.batchSeen = 0;
    this.batchEnd = null;
    if (this.writer) return this.flushToWriter(this.writer, batch, end, seen);
    // IMMEDIATE: take the write lock first, so a writer thread's commit cannot invalidate this
    // transaction's snapshot between a read in `apply` and its first write.
    this.readModels.db
      .transaction(() => {
        this.applyAll(batch, this.tx);
        this.readModels.saveCheckpoint(this.projection.name, this.generation, end, seen);
      })
      .immediate();
    this.committed(end, seen);
  }

  private flushToWriter(writer: NonNullable<ProjectionWorker['writer']>, batch: CatalogEvent[], end: Position, seen: number): Promise<void> {
    this.applyAll(batch, writer.tx);
    const done = writer.thread.commit(writer.tx.take(), end, seen).then(() => {
      writer.inFlight.shift();
      if (!this.stopped) this.committed(end, seen);
    });
    // A failed commit fails the worker even when nothing is waiting on this batch (after stop, the
    // writer thread's termination rejects what was still in flight; fail() ignores that).
    done.catch((error: unknown) => this.fail(error));
    writer.inFlight.push(done);
    return writer.inFlight.length > MAX_IN_FLIGHT ? writer.inFlight[0]! : Promise.resolve();
  }

  /** Lets every batch handed to the writer thread commit, then ends it: from here on, commit here. */
  private async endPipeline(): Promise<void> {
    const writer = this.writer;
    if (!writer) return;
    await Promise.all(writer.inFlight);
    await writer.thread.close();
    this.writer = null;
  }

  private applyAll(batch: CatalogEvent[], tx: ProjectionTx): void {
    for (const event of batch) {
      try {
        this.projection.apply(event, tx);
      } catch (error) {
        throw new ProjectionApplyError(this.projection.name, event, error);
      }
    }
  }

  private committed(end: Position, seen: number): void {
    this.checkpoint = end;
    this.processed += seen;
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
