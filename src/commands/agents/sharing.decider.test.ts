import { describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/api-error.js';
import { evolveAgent, roleOf, type AgentState } from './agent-state.js';
import { decideDeleteAgent, decideUpdateAgent, type AgentDecisionContext } from './agents.decider.js';
import {
  decideAccept,
  decideDecline,
  decideInvite,
  decideRemove,
  decideSetPublicChat,
  decideSetPublicRead,
  parseAccountId,
  parseInviteRole,
} from './sharing.decider.js';
import { evolveCredentials, NO_CREDENTIALS } from '../accounts/credentials.js';

const OWNER = 'z6MkOwnerOwnerOwnerOwnerOwner';
const WRITER = 'z6MkWriterWriterWriterWriter';
const READER = 'z6MkReaderReaderReaderReader';
const INVITEE = 'z6MkInviteeInviteeInvitee';
const STRANGER = 'z6MkStrangerStrangerStranger';
const AGENT_ID = '00000000-0000-4000-8000-000000000001';

const definition = { name: 'Helper', systemPrompt: 'Help.', modelProvider: 'main', model: 'gpt-5' };
const created = { type: 'AgentCreated', data: { ownerAccountId: OWNER, definition, systemPromptBlocks: [] } };
const invited = (accountId: string, role: string) => ({ type: 'AgentCollaboratorInvited', data: { accountId, role } });
const accepted = (accountId: string) => ({ type: 'AgentInviteAccepted', data: { accountId } });

function given(...events: { type: string; data: unknown }[]): AgentState | null {
  return events.reduce<AgentState | null>((s, e, i) => evolveAgent(s, { ...e, metadata: { at: 10 + i } }, AGENT_ID), null);
}
/** Owner, an accepted writer and reader, a pending invitee. */
const shared = () => given(created, invited(WRITER, 'writer'), accepted(WRITER), invited(READER, 'reader'), accepted(READER), invited(INVITEE, 'reader'));

function refusal(decide: () => unknown): ApiError {
  try {
    decide();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const context: AgentDecisionContext = {
  credentials: [
    { type: 'SecretSet', data: { id: 's1', name: 'k', fingerprint: 'f' } },
    { type: 'ModelProviderSet', data: { id: 'p1', name: 'main', config: { type: 'openai', secretRefs: { apiKey: 'k' } } } },
  ].reduce((s, e) => evolveCredentials(s, { ...e, metadata: { at: 1 } }), NO_CREDENTIALS),
  markdownToBlocks: () => [],
};

describe('sharing decider', () => {
  it('gives each account its role; a pending invitee and a stranger have none', () => {
    const agent = shared();
    expect([OWNER, WRITER, READER, INVITEE, STRANGER].map((account) => roleOf(agent, account))).toEqual(['owner', 'writer', 'reader', null, null]);
    const open = given(created, { type: 'AgentPublicReadSet', data: { publicRead: true } });
    expect(roleOf(open, STRANGER)).toBe('reader');
    const chat = evolveAgent(open, { type: 'AgentPublicChatSet', data: { publicChat: true }, metadata: { at: 20 } }, AGENT_ID);
    expect(roleOf(chat, STRANGER)).toBe('chatter');
    expect(roleOf(evolveAgent(chat, { type: 'AgentDeleted', data: {}, metadata: { at: 21 } }, AGENT_ID), OWNER)).toBeNull();
  });

  it('lets the owner invite, change a role, and remove; an unchanged role decides nothing', () => {
    expect(decideInvite(shared(), { account: OWNER, invitee: STRANGER, role: 'writer' })).toEqual([invited(STRANGER, 'writer')]);
    expect(decideInvite(shared(), { account: OWNER, invitee: READER, role: 'writer' })).toEqual([invited(READER, 'writer')]);
    expect(decideInvite(shared(), { account: OWNER, invitee: READER, role: 'reader' })).toEqual([]);
    expect(decideRemove(shared(), { account: OWNER, member: INVITEE })).toEqual([{ type: 'AgentCollaboratorRemoved', data: { accountId: INVITEE } }]);
    expect(refusal(() => decideRemove(shared(), { account: OWNER, member: STRANGER })).status).toBe(404);
    expect(refusal(() => decideInvite(shared(), { account: OWNER, invitee: OWNER, role: 'reader' })).status).toBe(400);
  });

  it('refuses sharing by anyone but the owner: 403 to who sees the agent, 404 Agent not found to who does not', () => {
    for (const [account, status] of [[WRITER, 403], [READER, 403], [INVITEE, 404], [STRANGER, 404]] as const) {
      const refused = refusal(() => decideInvite(shared(), { account, invitee: 'z6MkSomeoneSomeoneSomeone', role: 'reader' }));
      expect(refused.status).toBe(status);
      if (status === 404) expect(refused.message).toBe('Agent not found');
      expect(refusal(() => decideRemove(shared(), { account, member: READER })).status).toBe(status);
      expect(refusal(() => decideSetPublicRead(shared(), { account, publicRead: true })).status).toBe(status);
      expect(refusal(() => decideSetPublicChat(shared(), { account, publicChat: false })).status).toBe(status);
      expect(refusal(() => decideDeleteAgent(shared(), { account })).status).toBe(status);
    }
  });

  it('lets only the invitee accept or decline its own pending invitation', () => {
    expect(decideAccept(shared(), { account: INVITEE })).toEqual([accepted(INVITEE)]);
    expect(decideAccept(shared(), { account: READER })).toEqual([]);
    expect(decideDecline(shared(), { account: INVITEE })).toEqual([{ type: 'AgentInviteDeclined', data: { accountId: INVITEE } }]);
    expect(refusal(() => decideAccept(shared(), { account: STRANGER })).message).toBe('Agent not found');
    expect(refusal(() => decideDecline(shared(), { account: STRANGER })).message).toBe('Agent not found');
    expect(refusal(() => decideDecline(shared(), { account: READER })).status).toBe(404);
    const declined = evolveAgent(shared(), { type: 'AgentInviteDeclined', data: { accountId: INVITEE }, metadata: { at: 30 } }, AGENT_ID);
    expect(refusal(() => decideAccept(declined, { account: INVITEE })).message).toBe('Agent not found');
  });

  it('needs public read before public chat, and clears public chat with public read', () => {
    const refused = refusal(() => decideSetPublicChat(shared(), { account: OWNER, publicChat: true }));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/public read/);
    const open = given(created, { type: 'AgentPublicReadSet', data: { publicRead: true } }, { type: 'AgentPublicChatSet', data: { publicChat: true } });
    expect(decideSetPublicChat(open, { account: OWNER, publicChat: true })).toEqual([]);
    const closed = evolveAgent(open, { type: 'AgentPublicReadSet', data: { publicRead: false }, metadata: { at: 40 } }, AGENT_ID);
    expect(closed).toMatchObject({ publicRead: false, publicChat: false });
  });

  it('lets a writer update but not change signing keys; readers are forbidden, strangers not told', () => {
    const renamed = { ...definition, name: 'Renamed' };
    expect(decideUpdateAgent(shared(), { account: WRITER, definition: renamed }, context)).toHaveLength(1);
    expect(refusal(() => decideUpdateAgent(shared(), { account: WRITER, definition: { ...definition, signingKeys: ['k'] } }, context)).status).toBe(403);
    expect(refusal(() => decideUpdateAgent(shared(), { account: READER, definition: renamed }, context)).status).toBe(403);
    expect(refusal(() => decideUpdateAgent(shared(), { account: INVITEE, definition: renamed }, context)).message).toBe('Agent not found');
  });

  it('checks invite input', () => {
    expect(parseInviteRole('writer', 'role')).toBe('writer');
    expect(refusal(() => parseInviteRole('chatter', 'role')).status).toBe(400);
    expect(refusal(() => parseAccountId('not an account', 'accountId')).status).toBe(400);
  });
});
