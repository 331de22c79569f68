/**
 * `account/<accountId>`: a `change {reason, agentId?, sessionId?}` for each new row of the
 * account_changes projection for that account, from the moment of subscribing on — the Agents list
 * page refreshes on them. The projection decides who hears of what (owner, accepted collaborators);
 * this feed only forwards its rows.
 *
 * One cursor for the whole process: after events the projection handles land, one query reads the
 * rows past the cursor for every account and hands each to that account's subscribers.
 */
import { Injectable } from '@nestjs/common';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import type { Position } from '../../events/store/position.js';
import { accountChangesProjection, type AccountChangeRow } from '../../projections/account-changes.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { WsConnection } from './connection.js';
import { FeedSubscription } from './feed-subscription.js';
import { encodeFrame } from './frames.js';
import { ReadModelQueue } from './read-model-queue.js';
import type { AccountChange } from '../../protocol/ws.js';

const HANDLED: ReadonlySet<string> = new Set(accountChangesProjection.eventTypes);
const PAGE = 1000;

class AccountSubscription extends FeedSubscription<`account/${string}`> {
  constructor(
    /** Rows up to this id existed before the subscription: they are not news. */
    readonly startId: number,
    account: string,
    connection: WsConnection,
    private readonly feed: AccountFeed,
  ) {
    super(`account/${account}`, account, connection);
  }

  protected detach(): void {
    this.feed.detach(this);
  }
}

type ChangeRow = Pick<AccountChangeRow, 'id' | 'account_id' | 'reason' | 'agent_id' | 'session_id'>;

@Injectable()
export class AccountFeed {
  private readonly byAccount = new Map<string, Set<AccountSubscription>>();
  private cursor = 0;
  private latest: Position | null = null;
  private queued = false;

  constructor(
    private readonly projections: ProjectionService,
    private readonly queue: ReadModelQueue,
  ) {}

  subscribe(connection: WsConnection, account: string): AccountSubscription {
    const startId = this.lastId();
    // With nobody listening the cursor stood still; rows from then on are nobody's news.
    if (this.byAccount.size === 0) this.cursor = startId;
    const subscription = new AccountSubscription(startId, account, connection, this);
    let set = this.byAccount.get(account);
    if (!set) this.byAccount.set(account, (set = new Set()));
    set.add(subscription);
    connection.adopt(subscription);
    subscription.announce();
    return subscription;
  }

  detach(subscription: AccountSubscription): void {
    const set = this.byAccount.get(subscription.account);
    if (!set?.delete(subscription)) return;
    if (set.size === 0) this.byAccount.delete(subscription.account);
  }

  onEvent(event: CatalogEvent): void {
    if (this.byAccount.size === 0 || !HANDLED.has(event.type)) return;
    this.latest = event.position;
    // One read of the changes table covers every event that landed before it starts waiting.
    if (this.queued) return;
    this.queued = true;
    this.queue.after(
      () => {
        this.queued = false;
        return this.latest!;
      },
      accountChangesProjection.eventTypes,
      () => this.forward(),
    );
  }

  private forward(): void {
    const reader = this.projections.reader('account_changes');
    for (;;) {
      const rows = reader.all<ChangeRow>('SELECT id, account_id, reason, agent_id, session_id FROM {changes} WHERE id > ? ORDER BY id LIMIT ?', this.cursor, PAGE);
      for (const row of rows) this.deliver(row);
      if (rows.length) this.cursor = rows[rows.length - 1]!.id;
      if (rows.length < PAGE) return;
    }
  }

  private deliver(row: ChangeRow): void {
    const subscribers = this.byAccount.get(row.account_id);
    if (!subscribers) return;
    const value: AccountChange = {
      reason: row.reason,
      ...(row.agent_id !== null ? { agentId: row.agent_id } : {}),
      ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    };
    const frame = encodeFrame({ _: 'change', key: `account/${row.account_id}`, value });
    for (const subscription of subscribers) if (row.id > subscription.startId) subscription.connection.send(frame);
  }

  private lastId(): number {
    return this.projections.reader('account_changes').get<{ id: number | null }>('SELECT MAX(id) AS id FROM {changes}')?.id ?? 0;
  }
}
