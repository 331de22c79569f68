/** The accounts an access matrix checks, each seeing one fresh agent as its name says. */
import { principalToString } from '@seed-hypermedia/client/blobs';
import { newKey, type KeyPair } from './signed.js';

export type Persona = 'owner' | 'writer' | 'reader' | 'publicReader' | 'chatter' | 'pending' | 'stranger';
export const PERSONAS: Persona[] = ['owner', 'writer', 'reader', 'publicReader', 'chatter', 'pending', 'stranger'];

export interface SharedAgent {
  agentId: string;
  keys: Record<Persona, KeyPair>;
  ids: Record<Persona, string>;
}

type Ok = (action: Record<string, unknown>, signer?: KeyPair) => Promise<Record<string, unknown>>;

/**
 * A fresh agent of `owner`'s with an accepted writer and reader, a pending invitee (invited as
 * `pendingRole`) and a stranger. The public reader and the chatter are strangers to the agent made
 * for them, which has public read on — and, for the chatter, public chat.
 */
export async function sharedAgent(ok: Ok, owner: KeyPair, persona: Persona, definition: object, pendingRole: 'reader' | 'writer'): Promise<SharedAgent> {
  const keys = Object.fromEntries(PERSONAS.map((p) => [p, p === 'owner' ? owner : newKey()])) as Record<Persona, KeyPair>;
  const ids = Object.fromEntries(PERSONAS.map((p) => [p, principalToString(keys[p].principal)])) as Record<Persona, string>;
  const { agentId } = (await ok({ _: 'CreateAgent', definition })) as { agentId: string };
  for (const [who, role] of [['writer', 'writer'], ['reader', 'reader'], ['pending', pendingRole]] as const) {
    await ok({ _: 'InviteAgentCollaborator', agentId, accountId: ids[who], role });
  }
  await ok({ _: 'AcceptAgentInvite', agentId }, keys.writer);
  await ok({ _: 'AcceptAgentInvite', agentId }, keys.reader);
  if (persona === 'publicReader' || persona === 'chatter') await ok({ _: 'SetAgentPublicRead', agentId, publicRead: true });
  if (persona === 'chatter') await ok({ _: 'SetAgentPublicChat', agentId, publicChat: true });
  return { agentId, keys, ids };
}
