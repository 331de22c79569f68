/**
 * Sharing actions (spec/http-api.md, "Agent invitations and collaborators"): the commands decide on
 * the agent's stream (sharing.decider.ts); the two lists answer from the agents read model.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog, NewEvent } from '../../events/event-log.js';
import type {
  AcceptAgentInvite,
  AcceptAgentInviteResponse,
  AgentCollaboratorInfo,
  AgentInviteInfo,
  AgentPublicFlagsResponse,
  DeclineAgentInvite,
  DeclineAgentInviteResponse,
  InviteAgentCollaborator,
  InviteAgentCollaboratorResponse,
  ListAgentCollaborators,
  ListAgentCollaboratorsResponse,
  ListAgentInvites,
  ListAgentInvitesResponse,
  RemoveAgentCollaborator,
  RemoveAgentCollaboratorResponse,
  SetAgentPublicChat,
  SetAgentPublicRead,
} from '../../protocol/agents.js';
import type { AgentMemberRow } from '../../projections/agents.projection.js';
import { ApiError } from '../../protocol/api-error.js';
import { ProjectionService } from '../../projections/projection-service.js';
import type { ActionContext, ActionHandler } from '../action-registry.js';
import { MAX_ATTEMPTS, awaitProjections } from '../stream-decisions.js';
import { parseAgentId, readAccess } from './agent-read.js';
import { agentView, roleOf, type AgentState } from './agent-state.js';
import { agentAfterAppend, agentKeptChanging, appendAgentDecision, loadAgent } from './agent-stream.js';
import { agentNotFound } from './agents.decider.js';
import {
  decideAccept,
  decideDecline,
  decideInvite,
  decideRemove,
  decideSetPublicChat,
  decideSetPublicRead,
  parseAccountId,
  parseFlag,
  parseInviteRole,
} from './sharing.decider.js';

const SHARING_EVENTS = [
  'AgentCollaboratorInvited',
  'AgentInviteAccepted',
  'AgentInviteDeclined',
  'AgentCollaboratorRemoved',
  'AgentPublicReadSet',
  'AgentPublicChatSet',
];

/** Decide on the agent's stream, append, wait for the read model; the agent as it is after. */
async function decideOnAgent(
  log: EventLog,
  projections: ProjectionService,
  logger: Logger,
  context: ActionContext,
  agentId: string,
  decide: (agent: AgentState | null) => NewEvent[],
  what: string,
): Promise<AgentState> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { agent, revision } = await loadAgent(log, agentId);
    const events = decide(agent);
    const at = Date.now();
    if (events.length) {
      const position = await appendAgentDecision(log, context, agentId, revision, events, at);
      if (position === null) continue;
      await awaitProjections(projections, position, SHARING_EVENTS, logger);
    }
    // Every sharing decider refuses a missing agent.
    return agentAfterAppend(agent, agentId, events, at)!;
  }
  throw agentKeptChanging(agentId, what);
}

abstract class SharingCommand {
  protected abstract readonly logger: Logger;
  constructor(
    @Inject(EVENT_LOG) protected readonly log: EventLog,
    protected readonly projections: ProjectionService,
  ) {}

  protected decide(context: ActionContext, agentId: string, decide: (agent: AgentState | null) => NewEvent[], what: string): Promise<AgentState> {
    return decideOnAgent(this.log, this.projections, this.logger, context, agentId, decide, what);
  }
}

const flags = (agent: AgentState) => ({ agentId: agent.id, publicRead: agent.publicRead, publicChat: agent.publicChat });

@Injectable()
export class InviteAgentCollaboratorHandler
  extends SharingCommand
  implements ActionHandler<InviteAgentCollaborator, InviteAgentCollaboratorResponse>
{
  readonly action = 'InviteAgentCollaborator' as const;
  readonly fields = ['agentId', 'accountId', 'role'] as const;
  protected readonly logger = new Logger('InviteAgentCollaborator');

  async handle(action: InviteAgentCollaborator, context: ActionContext): Promise<InviteAgentCollaboratorResponse> {
    const agentId = parseAgentId(action.agentId, 'InviteAgentCollaborator.agentId');
    const invitee = parseAccountId(action.accountId, 'InviteAgentCollaborator.accountId');
    const role = parseInviteRole(action.role, 'InviteAgentCollaborator.role');
    const agent = await this.decide(context, agentId, (a) => decideInvite(a, { account: context.account, invitee, role }), 'inviting');
    const member = agent.members[invitee]!;
    return {
      _: 'InviteAgentCollaboratorResponse',
      agentId,
      collaborator: {
        accountId: invitee,
        role: member.role,
        status: member.accepted ? 'accepted' : 'pending',
        createdAt: member.invitedAt,
        updatedAt: member.updatedAt,
      },
    };
  }
}

@Injectable()
export class RemoveAgentCollaboratorHandler
  extends SharingCommand
  implements ActionHandler<RemoveAgentCollaborator, RemoveAgentCollaboratorResponse>
{
  readonly action = 'RemoveAgentCollaborator' as const;
  readonly fields = ['agentId', 'accountId'] as const;
  protected readonly logger = new Logger('RemoveAgentCollaborator');

  async handle(action: RemoveAgentCollaborator, context: ActionContext): Promise<RemoveAgentCollaboratorResponse> {
    const agentId = parseAgentId(action.agentId, 'RemoveAgentCollaborator.agentId');
    const member = parseAccountId(action.accountId, 'RemoveAgentCollaborator.accountId');
    await this.decide(context, agentId, (a) => decideRemove(a, { account: context.account, member }), 'removing a collaborator');
    return { _: 'RemoveAgentCollaboratorResponse', agentId, accountId: member };
  }
}

@Injectable()
export class AcceptAgentInviteHandler extends SharingCommand implements ActionHandler<AcceptAgentInvite, AcceptAgentInviteResponse> {
  readonly action = 'AcceptAgentInvite' as const;
  readonly fields = ['agentId'] as const;
  protected readonly logger = new Logger('AcceptAgentInvite');

  async handle(action: AcceptAgentInvite, context: ActionContext): Promise<AcceptAgentInviteResponse> {
    const agentId = parseAgentId(action.agentId, 'AcceptAgentInvite.agentId');
    const agent = await this.decide(context, agentId, (a) => decideAccept(a, { account: context.account }), 'accepting the invitation');
    return { _: 'AcceptAgentInviteResponse', agent: agentView(agent, roleOf(agent, context.account)!) };
  }
}

@Injectable()
export class DeclineAgentInviteHandler extends SharingCommand implements ActionHandler<DeclineAgentInvite, DeclineAgentInviteResponse> {
  readonly action = 'DeclineAgentInvite' as const;
  readonly fields = ['agentId'] as const;
  protected readonly logger = new Logger('DeclineAgentInvite');

  async handle(action: DeclineAgentInvite, context: ActionContext): Promise<DeclineAgentInviteResponse> {
    const agentId = parseAgentId(action.agentId, 'DeclineAgentInvite.agentId');
    await this.decide(context, agentId, (a) => decideDecline(a, { account: context.account }), 'declining the invitation');
    return { _: 'DeclineAgentInviteResponse', agentId };
  }
}

@Injectable()
export class SetAgentPublicReadHandler
  extends SharingCommand
  implements ActionHandler<SetAgentPublicRead, AgentPublicFlagsResponse<'SetAgentPublicReadResponse'>>
{
  readonly action = 'SetAgentPublicRead' as const;
  readonly fields = ['agentId', 'publicRead'] as const;
  protected readonly logger = new Logger('SetAgentPublicRead');

  async handle(action: SetAgentPublicRead, context: ActionContext): Promise<AgentPublicFlagsResponse<'SetAgentPublicReadResponse'>> {
    const agentId = parseAgentId(action.agentId, 'SetAgentPublicRead.agentId');
    const publicRead = parseFlag(action.publicRead, 'SetAgentPublicRead.publicRead');
    const agent = await this.decide(context, agentId, (a) => decideSetPublicRead(a, { account: context.account, publicRead }), 'setting public read');
    return { _: 'SetAgentPublicReadResponse', ...flags(agent) };
  }
}

@Injectable()
export class SetAgentPublicChatHandler
  extends SharingCommand
  implements ActionHandler<SetAgentPublicChat, AgentPublicFlagsResponse<'SetAgentPublicChatResponse'>>
{
  readonly action = 'SetAgentPublicChat' as const;
  readonly fields = ['agentId', 'publicChat'] as const;
  protected readonly logger = new Logger('SetAgentPublicChat');

  async handle(action: SetAgentPublicChat, context: ActionContext): Promise<AgentPublicFlagsResponse<'SetAgentPublicChatResponse'>> {
    const agentId = parseAgentId(action.agentId, 'SetAgentPublicChat.agentId');
    const publicChat = parseFlag(action.publicChat, 'SetAgentPublicChat.publicChat');
    const agent = await this.decide(context, agentId, (a) => decideSetPublicChat(a, { account: context.account, publicChat }), 'setting public chat');
    return { _: 'SetAgentPublicChatResponse', ...flags(agent) };
  }
}

/** The signed account's pending invitations: the agent's id and name, owner, role and times, nothing of its contents. */
@Injectable()
export class ListAgentInvitesHandler implements ActionHandler<ListAgentInvites, ListAgentInvitesResponse> {
  readonly action = 'ListAgentInvites' as const;
  readonly fields = [] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(_: ListAgentInvites, context: ActionContext): Promise<ListAgentInvitesResponse> {
    const rows = this.projections.reader('agents').all<AgentMemberRow & { name: string; owner_account_id: string }>(
      `SELECT m.*, a.name, a.owner_account_id FROM {agent_members} m JOIN {agents} a ON a.id = m.agent_id
       WHERE m.account_id = ? AND m.accepted = 0 AND a.deleted = 0 ORDER BY m.updated_at DESC, m.agent_id`,
      context.account,
    );
    const invites: AgentInviteInfo[] = rows.map((row) => ({
      agentId: row.agent_id,
      agentName: row.name,
      ownerAccountId: row.owner_account_id,
      role: row.role,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
    return { _: 'ListAgentInvitesResponse', invites };
  }
}

/** The owner and accepted members, and the public flags, to anyone who can see the agent; pending invitations to its owner only. */
@Injectable()
export class ListAgentCollaboratorsHandler implements ActionHandler<ListAgentCollaborators, ListAgentCollaboratorsResponse> {
  readonly action = 'ListAgentCollaborators' as const;
  readonly fields = ['agentId'] as const;

  constructor(private readonly projections: ProjectionService) {}

  async handle(action: ListAgentCollaborators, context: ActionContext): Promise<ListAgentCollaboratorsResponse> {
    const agentId = parseAgentId(action.agentId, 'ListAgentCollaborators.agentId');
    const access = readAccess(this.projections, agentId, context.account);
    if (!access) throw agentNotFound();
    const members = this.projections.reader('agents');
    // Who collaborates on an agent is for its collaborators: public read shows the agent, not its people.
    if (access.role !== 'owner' && !members.get('SELECT 1 FROM {agent_members} WHERE agent_id = ? AND account_id = ? AND accepted = 1', agentId, context.account)) {
      throw new ApiError(403, "Only the agent's owner and its accepted collaborators may list its collaborators; public access does not include them");
    }
    const rows = this.projections
      .reader('agents')
      .all<AgentMemberRow>(
        `SELECT * FROM {agent_members} WHERE agent_id = ? ${access.role === 'owner' ? '' : 'AND accepted = 1'} ORDER BY created_at, account_id`,
        agentId,
      );
    const owner: AgentCollaboratorInfo = {
      accountId: access.row.owner_account_id,
      role: 'owner',
      status: 'accepted',
      createdAt: access.row.created_at,
      updatedAt: access.row.created_at,
    };
    return {
      _: 'ListAgentCollaboratorsResponse',
      agentId,
      publicRead: access.row.public_read === 1,
      publicChat: access.row.public_chat === 1,
      collaborators: [
        owner,
        ...rows.map((row): AgentCollaboratorInfo => ({
          accountId: row.account_id,
          role: row.role,
          status: row.accepted ? 'accepted' : 'pending',
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        })),
      ],
    };
  }
}
