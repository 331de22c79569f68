/**
 * The embedded event store: one SQLite file in WAL mode.
 *
 * - Writes run in `BEGIN IMMEDIATE` transactions, so expected revisions hold across processes
 *   sharing the file: the check and the insert happen under SQLite's single write lock.
 * - Group commit: appends requested in the same tick share one transaction (one WAL sync); each
 *   runs in its own savepoint, so one append's refusal never touches another's events.
 * - An append resolves only after its transaction committed: acknowledged means durable.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Database as Db, Statement, Transaction } from 'better-sqlite3';
import { DuplicateEventIdError, StreamDeletedError, StreamNotFoundError, StoreUnavailableError } from '../errors.js';
import { assertExpectedRevision } from '../expected-revision.js';
import { compileFilter } from '../filter.js';
import { position, type Position } from '../position.js';
import type {
  AppendOptions,
  AppendResult,
  DeleteOptions,
  EventData,
  EventStore,
  ExpectedRevision,
  JsonObject,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamMetadata,
  SubscribeAllOptions,
  SubscribeStreamOptions,
  Subscription,
} from '../types.js';
import {
  checkExpected,
  checkMaxCount,
  checkStreamMetadata,
  checkStreamName,
  metadataFromJson,
  metadataToJson,
  prepareEvents,
  type PreparedEvent,
} from '../validation.js';
import { LiveHub } from './live-hub.js';
import {
  openSchema,
  STATE_OPEN,
  STATE_SOFT_DELETED,
  STATE_TOMBSTONED,
  type Durability,
  type EventRow,
  type StreamRow,
} from './schema.js';
import { filterToSql } from './sql-filter.js';
import { EVENT_COLUMNS, pagedEvents, toRecorded, type EventTuple } from './rows.js';

export interface SqliteEventStoreOptions {
  /** `process` (default) survives a process crash; `power-loss` also fsyncs every commit. */
  durability?: Durability;
  /** Rows per page for reads and catch-up. */
  pageSize?: number;
}

interface PendingAppend {
  stream: string;
  events: PreparedEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface AppendOutcome {
  result: AppendResult;
  /** Rows written by this append; empty for an idempotent retry. */
  rows: EventTuple[];
}

export class SqliteEventStore implements EventStore {
  readonly path: string;
  private readonly db: Db;
  private readonly pageSize: number;
  private readonly hub: LiveHub;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly stmt: {
    stream: Statement<[string], StreamRow>;
    eventById: Statement<[string, string], EventRow>;
    insert: Statement<[string, number, string, string, string, string, number]>;
    upsertStream: Statement<[string, number, number]>;
    setState: Statement<[string, number]>;
    setMetadata: Statement<[string, string, number]>;
    head: Statement<[], { seq: number } | undefined>;
    eventsAfter: Statement<[number, number], EventTuple>;
  };
  private readonly queryCache = new Map<string, Statement>();
  /** Built once: better-sqlite3 creates four wrapper functions per `transaction()` call. */
  private readonly appendOne: (item: PendingAppend, now: number) => AppendOutcome;
  private readonly commitGroup: Transaction<
    (batch: PendingAppend[]) => { headBefore: number; outcomes: (AppendOutcome | { error: unknown })[] }
  >;

  constructor(path: string, options: SqliteEventStoreOptions = {}) {
    this.path = path;
    this.pageSize = options.pageSize ?? 1000;
    this.db = new Database(path);
    openSchema(this.db, options.durability ?? 'process');
    this.stmt = {
      stream: this.db.prepare('SELECT last_revision, state, metadata, metadata_revision FROM streams WHERE name = ?'),
      eventById: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND id = ?`),
      insert: this.db.prepare(
        'INSERT INTO events (stream, revision, id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      upsertStream: this.db.prepare(
        `INSERT INTO streams (name, last_revision, state) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET last_revision = excluded.last_revision, state = excluded.state`,
      ),
      setState: this.db.prepare(
        `INSERT INTO streams (name, state) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET state = excluded.state`,
      ),
      setMetadata: this.db.prepare(
        `INSERT INTO streams (name, metadata, metadata_revision) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET metadata = excluded.metadata, metadata_revision = excluded.metadata_revision`,
      ),
      head: this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'"),
      eventsAfter: this.db
        .prepare<[number, number], EventTuple>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
        .raw(true),
    };
    this.appendOne = this.db.transaction((item: PendingAppend, now: number) => this.appendBody(item, now));
    this.commitGroup = this.db.transaction((batch: PendingAppend[]) => {
      const headBefore = this.headNumber();
      const now = Date.now();
      const outcomes = batch.map((item) => {
        try {
          return this.appendOne(item, now);
        } catch (error) {
          // Disk full, I/O errors and the like can make SQLite roll back the whole transaction, not
          // just this append's savepoint: then the group fails together, or later appends would
          // commit on their own while every caller hears "failed".
          if (!this.db.inTransaction) throw error;
          return { error };
        }
      });
      return { headBefore, outcomes };
    });
    this.hub = new LiveHub({
      path,
      pageSize: this.pageSize,
      head: () => this.headNumber(),
      eventsAfter: (after, limit) => this.stmt.eventsAfter.all(after, limit).map(toRecorded),
      dataVersion: () => this.db.pragma('data_version', { simple: true }) as number,
      readAllPage: (after, limit, filter) => this.readAllPage(after, 'forwards', limit, filter),
      readStreamPage: (stream, afterRevision, limit) => this.readStreamPage(stream, afterRevision, limit),
      lastRevision: (stream) => this.currentStream(stream).lastRevision,
      snapshot: (read) => this.db.transaction(read).deferred(),
    });
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    try {
      this.assertOpen();
      const expected = options.expected ?? 'any';
      checkExpected(expected);
      const prepared = prepareEvents(stream, events, randomUUID);
      return new Promise((resolve, reject) => {
        this.pending.push({ stream, events: prepared, expected, resolve, reject });
        if (!this.flushScheduled) {
          this.flushScheduled = true;
          queueMicrotask(() => this.flush());
        }
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let group: { headBefore: number; outcomes: (AppendOutcome | { error: unknown })[] };
    try {
      group = this.commitGroup.immediate(batch);
    } catch (error) {
      const failure = toStoreError(error);
      for (const item of batch) item.reject(failure);
      return;
    }
    const { headBefore, outcomes } = group;
    const written: EventTuple[] = [];
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) {
        item.reject(outcome.error);
      } else {
        written.push(...outcome.rows);
        item.resolve(outcome.result);
      }
    });
    if (written.length) this.hub.publishLocal(headBefore, written);
  }

  /** Runs inside the group transaction, in its own savepoint (see the constructor). */
  private appendBody(item: PendingAppend, now: number): AppendOutcome {
    const current = this.currentStream(item.stream);
    // Even a retry of an append that had succeeded is refused once the stream is tombstoned.
    if (current.tombstoned) throw new StreamDeletedError(item.stream);
    const retried = this.idempotentResult(item);
    if (retried) return { result: retried, rows: [] };
    assertExpectedRevision(item.stream, item.expected, current);
    let revision = Number(current.lastRevision);
    const rows: EventTuple[] = [];
    for (const event of item.events) {
      revision += 1;
      let info;
      try {
        info = this.stmt.insert.run(item.stream, revision, event.id, event.type, event.data, event.metadata, now);
      } catch (error) {
        if (isUniqueViolation(error, 'events.stream, events.id')) throw new DuplicateEventIdError(item.stream, event.id);
        throw error;
      }
      rows.push([Number(info.lastInsertRowid), item.stream, revision, event.id, event.type, event.data, event.metadata, now]);
    }
    this.stmt.upsertStream.run(item.stream, revision, STATE_OPEN);
    const last = rows[rows.length - 1]!;
    return { result: { nextExpectedRevision: BigInt(revision), position: position(BigInt(last[0])) }, rows };
  }

  /**
   * A retry of an append that already committed (same ids, same stream, same order) gets the first
   * acknowledgement again, whatever its expected revision says now. Ids are checked within the
   * stream, as KurrentDB does.
   */
  private idempotentResult(item: PendingAppend): AppendResult | null {
    const first = this.stmt.eventById.get(item.stream, item.events[0]!.id);
    if (!first) return null;
    let last = first;
    for (let i = 0; i < item.events.length; i++) {
      const row = i === 0 ? first : this.stmt.eventById.get(item.stream, item.events[i]!.id);
      if (!row || row.revision !== first.revision + i) {
        throw new DuplicateEventIdError(item.stream, item.events[i]!.id);
      }
      last = row;
    }
    return { nextExpectedRevision: BigInt(last.revision), position: position(BigInt(last.position)) };
  }

  private currentStream(stream: string): {
    lastRevision: bigint;
    softDeleted: boolean;
    tombstoned: boolean;
    row: StreamRow | undefined;
  } {
    const row = this.stmt.stream.get(stream);
    return {
      lastRevision: BigInt(row?.last_revision ?? -1),
      softDeleted: row?.state === STATE_SOFT_DELETED,
      tombstoned: row?.state === STATE_TOMBSTONED,
      row,
    };
  }

  readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    let query: (() => RecordedEvent[] | null) | null = null;
    return pagedEvents(() => (query ??= this.streamPages(stream, options))());
  }

  /** Checks happen on the first page, so a bad read fails where it is iterated, as in KurrentDB. */
  private streamPages(stream: string, options: ReadStreamOptions): () => RecordedEvent[] | null {
    this.assertOpen();
    checkStreamName(stream);
    checkMaxCount(options.maxCount);
    const backwards = options.direction === 'backwards';
    const current = this.currentStream(stream);
    if (current.tombstoned) throw new StreamDeletedError(stream);
    if (current.lastRevision < 0n || current.softDeleted) throw new StreamNotFoundError(stream);
    const meta = current.row?.metadata ? metadataFromJson(JSON.parse(current.row.metadata) as JsonObject) : {};
    const last = Number(current.lastRevision);
    let lowest = meta.truncateBefore === undefined ? 0 : Number(meta.truncateBefore);
    if (meta.maxCount !== undefined) lowest = Math.max(lowest, last - meta.maxCount + 1);
    const minCreated = meta.maxAge === undefined ? 0 : Date.now() - meta.maxAge * 1000;
    const from = options.from ?? (backwards ? 'end' : 'start');
    let cursor = from === 'start' ? (backwards ? -1 : lowest) : from === 'end' ? (backwards ? last : last + 1) : Number(from);
    let remaining = options.maxCount ?? Infinity;
    const query = this.cached(
      backwards
        ? `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? AND revision >= ? AND created >= ? ORDER BY revision DESC LIMIT ?`
        : `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? AND revision >= ? AND created >= ? ORDER BY revision ASC LIMIT ?`,
    );
    let exhausted = false;
    return () => {
      if (exhausted || remaining <= 0) return null;
      this.assertOpen();
      const limit = Math.min(this.pageSize, remaining);
      const rows = query.all(stream, cursor, lowest, minCreated, limit) as EventTuple[];
      remaining -= rows.length;
      if (rows.length < limit) exhausted = true;
      else cursor = rows[rows.length - 1]![2] + (backwards ? -1 : 1);
      return rows.map(toRecorded);
    };
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    let query: (() => RecordedEvent[] | null) | null = null;
    return pagedEvents(() => (query ??= this.allPages(options))());
  }

  private allPages(options: ReadAllOptions): () => RecordedEvent[] | null {
    this.assertOpen();
    checkMaxCount(options.maxCount);
    compileFilter(options.filter);
    const backwards = options.direction === 'backwards';
    const from = options.from ?? (backwards ? 'end' : 'start');
    if (from === 'start' && backwards) return () => null;
    // Pages are keyed by an exclusive cursor; `from` is inclusive.
    let after: number;
    if (from === 'start') after = 0;
    else if (from === 'end') after = backwards ? Number.MAX_SAFE_INTEGER : this.headNumber();
    else after = Number(from.commit) + (backwards ? 1 : -1);
    let remaining = options.maxCount ?? Infinity;
    let exhausted = false;
    return () => {
      if (exhausted || remaining <= 0) return null;
      this.assertOpen();
      const limit = Math.min(this.pageSize, remaining);
      const page = this.readAllPage(after, backwards ? 'backwards' : 'forwards', limit, options.filter);
      remaining -= page.length;
      if (page.length < limit) exhausted = true;
      else after = Number(page[page.length - 1]!.position.commit);
      return page;
    };
  }

  private readAllPage(
    after: number,
    direction: 'forwards' | 'backwards',
    limit: number,
    filter: ReadAllOptions['filter'],
  ): RecordedEvent[] {
    const where = filterToSql(filter);
    const sql =
      direction === 'forwards'
        ? `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ?${where.sql} ORDER BY position ASC LIMIT ?`
        : `SELECT ${EVENT_COLUMNS} FROM events WHERE position < ?${where.sql} ORDER BY position DESC LIMIT ?`;
    return (this.cached(sql).all(after, ...where.params, limit) as EventTuple[]).map(toRecorded);
  }

  private readStreamPage(stream: string, afterRevision: number, limit: number): RecordedEvent[] {
    const sql = `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision > ? ORDER BY revision ASC LIMIT ?`;
    return (this.cached(sql).all(stream, afterRevision, limit) as EventTuple[]).map(toRecorded);
  }

  subscribeAll(options: SubscribeAllOptions = {}): Subscription {
    this.assertOpen();
    return this.hub.subscribeAll(options);
  }

  subscribeStream(stream: string, options: SubscribeStreamOptions = {}): Subscription {
    this.assertOpen();
    checkStreamName(stream);
    return this.hub.subscribeStream(stream, options);
  }

  async getStreamMetadata(stream: string): Promise<StreamMetadata> {
    this.assertOpen();
    checkStreamName(stream);
    const row = this.stmt.stream.get(stream);
    if (row?.state === STATE_TOMBSTONED) throw new StreamDeletedError(stream);
    return row?.metadata ? metadataFromJson(JSON.parse(row.metadata) as JsonObject) : {};
  }

  /** `expected` applies to the metadata's own revision, as KurrentDB's `$$stream` does. */
  async setStreamMetadata(stream: string, metadata: StreamMetadata, options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen();
    checkStreamName(stream);
    checkStreamMetadata(metadata);
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    return this.write(() => {
      const row = this.stmt.stream.get(stream);
      if (row?.state === STATE_TOMBSTONED) throw new StreamDeletedError(stream);
      const revision = row?.metadata_revision ?? -1;
      assertExpectedRevision(`$$${stream}`, expected, { lastRevision: BigInt(revision), softDeleted: false });
      this.stmt.setMetadata.run(stream, JSON.stringify(metadataToJson(metadata)), revision + 1);
      return { nextExpectedRevision: BigInt(revision + 1), position: position(BigInt(this.headNumber())) };
    });
  }

  async deleteStream(stream: string, options: DeleteOptions = {}): Promise<{ position: Position | null }> {
    return this.removeStream(stream, options, false);
  }

  async tombstoneStream(stream: string, options: DeleteOptions = {}): Promise<{ position: Position | null }> {
    return this.removeStream(stream, options, true);
  }

  private async removeStream(stream: string, options: DeleteOptions, tombstone: boolean): Promise<{ position: null }> {
    this.assertOpen();
    checkStreamName(stream);
    const expected = options.expected ?? 'any';
    checkExpected(expected);
    return this.write(() => {
      const current = this.currentStream(stream);
      if (current.tombstoned) throw new StreamDeletedError(stream);
      assertExpectedRevision(stream, expected, current);
      if (tombstone) {
        this.stmt.setState.run(stream, STATE_TOMBSTONED);
      } else {
        if (current.lastRevision < 0n || current.softDeleted) throw new StreamNotFoundError(stream);
        // Soft delete truncates everything so far: a later append reopens the stream with only new events.
        const meta = current.row?.metadata ? metadataFromJson(JSON.parse(current.row.metadata) as JsonObject) : {};
        meta.truncateBefore = current.lastRevision + 1n;
        this.stmt.setMetadata.run(stream, JSON.stringify(metadataToJson(meta)), (current.row?.metadata_revision ?? -1) + 1);
        this.stmt.setState.run(stream, STATE_SOFT_DELETED);
      }
      return { position: null };
    });
  }

  async headPosition(): Promise<Position | null> {
    this.assertOpen();
    const head = this.headNumber();
    return head === 0 ? null : position(BigInt(head));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Let appends already accepted commit before the connection goes.
    if (this.pending.length) this.flush();
    this.closed = true;
    await this.hub.close();
    this.db.close();
  }

  /** Deletes and metadata writes: after any appends already requested, so they keep their order. */
  private write<T>(body: () => T): Promise<T> {
    try {
      if (this.pending.length) this.flush();
      return Promise.resolve(this.db.transaction(body).immediate());
    } catch (error) {
      return Promise.reject(toStoreError(error));
    }
  }

  private headNumber(): number {
    return this.stmt.head.get()?.seq ?? 0;
  }

  /** Event queries, prepared once, returning EventTuples. */
  private cached(sql: string): Statement {
    let stmt = this.queryCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql).raw(true);
      this.queryCache.set(sql, stmt);
    }
    return stmt;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError(`The event store at ${this.path} is closed`);
  }
}

function isUniqueViolation(error: unknown, column: string): boolean {
  return (
    error instanceof Error &&
    (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    error.message.includes(column)
  );
}

/** Lock time-outs and I/O failures mean "not written, try again"; store refusals pass through. */
function toStoreError(error: unknown): unknown {
  const code = (error as { code?: string } | null)?.code;
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|IOERR|FULL|NOMEM|CANTOPEN)/.test(code)) {
    return new StoreUnavailableError(`The event store could not commit (${code}): nothing was written`, { cause: error });
  }
  return error;
}
