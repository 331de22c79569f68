import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../commands/sessions/session-state.js';
import type { Actor, LogEntry, LogPayload } from '../transcript/log-entry.js';
import { needsTitle, titleDigest, titleFromReply } from './session-title.js';

const entry = (actor: Actor, event: LogPayload, seq: number): LogEntry => ({ id: `e${seq}`, seq, actor, createdAt: seq, event });
const session = (titleSource?: 'user' | 'auto'): SessionState => ({
  id: 's',
  agentId: 'a',
  ownerAccountId: 'o',
  createdAt: 0,
  updatedAt: 0,
  deleted: false,
  lastSeq: 2,
  eventIds: new Set(),
  ...(titleSource ? { title: 'T', titleSource } : {}),
});
const exchange = [entry('user', { type: 'message', role: 'user', content: 'Plan a trip' }, 1), entry('agent', { type: 'message', role: 'assistant', content: 'Sure.' }, 2)];

describe('needsTitle', () => {
  it('given an untitled session after its first exchange, then it needs one', () => {
    expect(needsTitle({ session: session(), entries: exchange, causes: new Map() })).toBe(true);
  });

  it('given a title from a person or from titling, or no answer yet, then it does not', () => {
    expect(needsTitle({ session: session('user'), entries: exchange, causes: new Map() })).toBe(false);
    expect(needsTitle({ session: session('auto'), entries: exchange, causes: new Map() })).toBe(false);
    expect(needsTitle({ session: session(), entries: exchange.slice(0, 1), causes: new Map() })).toBe(false);
    // Named when it was created (CreateSession {title}): no titleSource, but a title all the same.
    expect(needsTitle({ session: { ...session(), title: 'Given at creation' }, entries: exchange, causes: new Map() })).toBe(false);
  });
});

describe('titleDigest', () => {
  it('given a conversation, then the titler reads who said what, and a user’s tool run, but not the agent’s tools', () => {
    const log = [
      ...exchange,
      entry('agent', { type: 'tool_call', id: 'c1', name: 'plan', input: {} }, 3),
      entry('user', { type: 'tool_call', id: 'c2', name: 'read', input: { address: '~/memory/a' } }, 4),
    ];
    expect(titleDigest(log)).toBe('User: Plan a trip\n\nAssistant: Sure.\n\nUser ran read: {"address":"~/memory/a"}');
  });
});

describe('titleFromReply', () => {
  it.each([
    ['Trip planning', 'Trip planning'],
    ['"Trip planning."', 'Trip planning'],
    ['Title: **Trip planning**\nA second line', 'Trip planning'],
    ['\n\n  “Trip   planning”  ', 'Trip planning'],
  ])('given %j, then the title is %j', (reply, title) => {
    expect(titleFromReply(reply)).toBe(title);
  });

  it('given nothing usable, then there is no title', () => {
    expect(titleFromReply('')).toBeNull();
    expect(titleFromReply('"..."')).toBeNull();
  });
});
