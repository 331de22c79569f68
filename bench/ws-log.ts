/**
 * Appends user messages to one session's Log straight through the EventLog, as MessageSession would
 * record them — contiguous `seq`, `prev` the CID of the Log event before — without a signed request
 * and a stream read per message: the bench's steady appender and the tests' bulk fixtures.
 *
 * The chain needs each event as stored. EventLog stamps `v` and `at` onto the append's context and
 * the event's own metadata; `at` is given here, so the stored metadata is known before the append,
 * and `verifyChain` reads the Log back to prove the CIDs were right.
 */
import { randomUUID } from 'node:crypto';
import { loadSession, sessionStream } from '../src/commands/sessions/session-stream.js';
import type { EventLog } from '../src/events/event-log.js';
import { logEventCid } from '../src/events/log-chain.js';
import type { EventContext } from '../src/events/catalog/metadata.js';
import type { Position } from '../src/events/store/position.js';
import type { JsonObject } from '../src/events/store/types.js';

export class SessionLogWriter {
  private constructor(
    private readonly log: EventLog,
    private readonly sessionId: string,
    private readonly account: string,
    private lastSeq: number,
    private lastCid: string | undefined,
    private revision: bigint | 'no_stream',
  ) {}

  static async open(log: EventLog, sessionId: string, account: string): Promise<SessionLogWriter> {
    const { session, revision } = await loadSession(log, sessionId);
    if (!session) throw new Error(`Session ${sessionId} does not exist`);
    return new SessionLogWriter(log, sessionId, account, session.lastSeq, session.lastLogCid, revision);
  }

  /** One append of one user message per text, at the stream's expected revision. */
  async append(texts: readonly string[]): Promise<Position> {
    const version = this.log.catalog.get('message')!.version;
    const at = Date.now();
    const context: EventContext = { actor: 'user', accountId: this.account, signerId: this.account, causationId: 'bench', correlationId: 'bench', at };
    let { lastSeq, lastCid } = this;
    const events = texts.map((content) => {
      const id = randomUUID();
      const data = { role: 'user', content, rawMarkdown: content, meta: { accountId: this.account, signerId: this.account } };
      const metadata = { seq: ++lastSeq, ...(lastCid !== undefined ? { prev: lastCid } : {}) };
      lastCid = logEventCid({ id, type: 'message', data, metadata: { ...context, ...metadata, v: version, at } as JsonObject });
      return { id, type: 'message', data, metadata };
    });
    const { position, nextExpectedRevision } = await this.log.append(sessionStream(this.sessionId), events, context, { expected: this.revision });
    this.lastSeq = lastSeq;
    this.lastCid = lastCid;
    this.revision = nextExpectedRevision;
    return position;
  }

  /** Throws unless every Log event's `prev` is the CID of the Log event stored before it. */
  async verifyChain(): Promise<void> {
    let previous: string | undefined;
    for await (const event of this.log.store.readStream(sessionStream(this.sessionId))) {
      if (typeof event.metadata.seq !== 'number') continue;
      if (event.metadata.prev !== previous) throw new Error(`Session ${this.sessionId}: seq ${event.metadata.seq} does not chain to the event before it`);
      previous = logEventCid(event);
    }
  }
}
