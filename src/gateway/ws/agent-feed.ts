/**
 * `agents/<agentId>`: a `change` with the AgentInfo, as the subscriber's role sees it, whenever the
 * agent's stream gets an event; and, for the owner and accepted members (who may list the agent's
 * sessions), a `change` for each of its sessions created, renamed or deleted.
 *
 * It also keeps every subscription bound to an agent (sessions and runs too): after each event of an
 * agent, a subscriber who lost its role — removed, public read turned off, the agent deleted — gets
 * an error frame and its subscription ends.
 */
import { Injectable } from '@nestjs/common';
import { agentInfo, readAccess } from '../../commands/agents/agent-read.js';
import type { CatalogEvent } from '../../events/catalog/upcast.js';
import type { AgentAccessRole } from '../../protocol/agents.js';
import type { AgentMemberRow, AgentRow } from '../../projections/agents.projection.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { WsConnection } from './connection.js';
import { FeedSubscription, type AgentBound } from './feed-subscription.js';
import { encodeFrame, notFoundMessage, type Frame } from './frames.js';
import { ReadModelQueue } from './read-model-queue.js';

class AgentSubscription extends FeedSubscription<`agents/${string}`> implements AgentBound {
  constructor(
    readonly agentId: string,
    account: string,
    connection: WsConnection,
    private readonly feed: AgentFeed,
  ) {
    super(`agents/${agentId}`, account, connection);
  }

  protected detach(): void {
    this.feed.unbind(this);
  }
}

@Injectable()
export class AgentFeed {
  private readonly bound = new Map<string, Set<AgentBound>>();
  private agentKeys = 0;

  constructor(
    private readonly projections: ProjectionService,
    private readonly queue: ReadModelQueue,
  ) {}

  /** Null when the agent is missing or hidden from `account`: the caller answers not found either way. */
  subscribe(connection: WsConnection, agentId: string, account: string): AgentSubscription | null {
    if (!readAccess(this.projections, agentId, account)) return null;
    const subscription = new AgentSubscription(agentId, account, connection, this);
    this.bind(subscription);
    this.agentKeys++;
    connection.adopt(subscription);
    subscription.announce();
    return subscription;
  }

  bind(subscription: AgentBound): void {
    let set = this.bound.get(subscription.agentId);
    if (!set) this.bound.set(subscription.agentId, (set = new Set()));
    set.add(subscription);
  }

  unbind(subscription: AgentBound): void {
    const set = this.bound.get(subscription.agentId);
    if (!set?.delete(subscription)) return;
    if (set.size === 0) this.bound.delete(subscription.agentId);
    if (subscription instanceof AgentSubscription) this.agentKeys--;
  }

  get hasAgentKeys(): boolean {
    return this.agentKeys > 0;
  }

  onEvent(event: CatalogEvent): void {
    const agentId = event.stream.slice('agent-'.length);
    if (!this.bound.has(agentId)) return;
    this.queue.after(() => event.position, [event.type], () => this.refresh(agentId));
  }

  /** A session of the agent was created, renamed or deleted: `frame` is its `change`. */
  sessionChanged(agentId: string, frame: Frame): void {
    for (const subscription of this.bound.get(agentId) ?? []) {
      if (subscription instanceof AgentSubscription && this.listsSessions(agentId, subscription.account)) subscription.connection.send(frame);
    }
  }

  private refresh(agentId: string): void {
    const byRole = new Map<AgentAccessRole, Frame>();
    for (const subscription of [...(this.bound.get(agentId) ?? [])]) {
      const access = readAccess(this.projections, agentId, subscription.account);
      if (!access) {
        subscription.endWith(this.endedMessage(subscription.key, agentId));
        continue;
      }
      if (!(subscription instanceof AgentSubscription)) continue;
      let frame = byRole.get(access.role);
      if (!frame) byRole.set(access.role, (frame = encodeFrame({ _: 'change', key: subscription.key, value: agentInfo(access.row, access.role) })));
      subscription.connection.send(frame);
    }
  }

  /** Whoever had a role learns why it ended; that is no news to them. */
  private endedMessage(key: string, agentId: string): string {
    const agent = this.projections.reader('agents').get<Pick<AgentRow, 'deleted'>>('SELECT deleted FROM {agents} WHERE id = ?', agentId);
    if (agent?.deleted) return `${key} ended: agent ${agentId} was deleted`;
    if (!agent) return notFoundMessage(key);
    return `${key} ended: this account no longer has a role on agent ${agentId}`;
  }

  /** The owner and accepted members; a public reader may read the agent but not list its sessions. */
  private listsSessions(agentId: string, account: string): boolean {
    const agents = this.projections.reader('agents');
    const agent = agents.get<Pick<AgentRow, 'owner_account_id'>>('SELECT owner_account_id FROM {agents} WHERE id = ? AND deleted = 0', agentId);
    if (!agent) return false;
    if (agent.owner_account_id === account) return true;
    return (
      agents.get<Pick<AgentMemberRow, 'accepted'>>('SELECT accepted FROM {agent_members} WHERE agent_id = ? AND account_id = ? AND accepted = 1', agentId, account) !==
      undefined
    );
  }
}
