/**
 * Who may do what in a session (spec/http-api.md, "SetAgentPublicRead", "SetAgentPublicChat"): every
 * session action × every kind of account. Readers read; chatters also create, message and stop;
 * writers and the owner also rename and delete. An account that cannot see the agent gets 404, never
 * 403, and a refusal appends nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { principalToString } from '@seed-hypermedia/client/blobs';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { PERSONAS, sharedAgent, type Persona, type SharedAgent } from './personas.js';
import { newKey, signedApi, startTestServer, type KeyPair } from './signed.js';

interface World extends SharedAgent {
  sessionId: string;
}

const idOf = (key: KeyPair) => principalToString(key.principal);

describe('session access', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;

  const call = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).call(action, signer);
  const ok = (action: Record<string, unknown>, signer: KeyPair = owner) => signedApi(base, owner).ok(action, signer);
  const definition = { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' };

  /**
   * A fresh agent with one session holding one message (so one queued turn, which StopSession can
   * cancel), seen by each persona as its name says. The public reader and the chatter are strangers to
   * their own worlds' agents, which have public read (and public chat) on.
   */
  async function world(persona: Persona): Promise<World> {
    const agent = await sharedAgent(ok, owner, persona, definition, 'writer');
    const { sessionId } = (await ok({ _: 'CreateSession', agentId: agent.agentId })) as { sessionId: string };
    await ok({ _: 'MessageSession', sessionId, content: [{ type: 'text', text: 'hello' }] });
    return { ...agent, sessionId };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-session-access-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const A = 'Agent not found';
  const S = 'Session not found';
  //                                                    owner writer reader publicReader chatter pending stranger
  const MATRIX: [string, (w: World) => Record<string, unknown>, (number | string)[]][] = [
    ['CreateSession', (w) => ({ _: 'CreateSession', agentId: w.agentId, title: 'Mine' }), [200, 200, 403, 403, 200, A, A]],
    ['GetSession', (w) => ({ _: 'GetSession', sessionId: w.sessionId }), [200, 200, 200, 200, 200, S, S]],
    ['ListSessions by agent', (w) => ({ _: 'ListSessions', agentId: w.agentId }), [200, 200, 200, 200, 200, A, A]],
    ['ListSessions by parent', (w) => ({ _: 'ListSessions', parentSessionId: w.sessionId }), [200, 200, 200, 200, 200, S, S]],
    ['MessageSession', (w) => ({ _: 'MessageSession', sessionId: w.sessionId, content: [{ type: 'text', text: 'me too' }] }), [200, 200, 403, 403, 200, S, S]],
    ['StopSession', (w) => ({ _: 'StopSession', sessionId: w.sessionId }), [200, 200, 403, 403, 200, S, S]],
    ['UpdateSession', (w) => ({ _: 'UpdateSession', sessionId: w.sessionId, title: 'Renamed' }), [200, 200, 403, 403, 403, S, S]],
    ['DeleteSession', (w) => ({ _: 'DeleteSession', sessionId: w.sessionId }), [200, 200, 403, 403, 403, S, S]],
  ];

  const REFUSALS: Record<string, string> = {
    CreateSession: 'the owner, writers and chatters (public chat) may create sessions',
    MessageSession: 'the owner, writers and chatters (public chat) may message sessions',
    StopSession: 'the owner, writers and chatters (public chat) may stop sessions',
    UpdateSession: 'the owner and writers may rename sessions',
    DeleteSession: 'the owner and writers may delete sessions',
  };

  const cells = MATRIX.flatMap(([action, build, outcomes]) => PERSONAS.map((persona, index) => ({ action, build, persona, outcome: outcomes[index]! })));

  it.each(cells)('$action as $persona → $outcome', async ({ action, build, persona, outcome }) => {
    const w = await world(persona);
    const log = app.get<EventLog>(EVENT_LOG);
    const head = await log.store.headPosition();
    const answer = await call(build(w), w.keys[persona]);
    if (outcome === 200) {
      expect(answer.status, JSON.stringify(answer.value)).toBe(200);
      if (action === 'StopSession') expect(answer.value).toMatchObject({ stopped: true });
      return;
    }
    if (typeof outcome === 'string') {
      // Whoever cannot see the agent learns nothing of it, not even that the session exists.
      expect(answer).toEqual({ status: 404, value: { _: 'Error', message: outcome } });
    } else {
      expect(answer.status, JSON.stringify(answer.value)).toBe(403);
      const role = persona === 'publicReader' ? 'reader' : persona;
      expect(answer.value.message).toBe(`Only ${REFUSALS[action]}; this account is a ${role} of the agent`);
    }
    expect(await log.store.headPosition()).toEqual(head);
  });

  it('records who sent each message: the owner’s, a writer’s and a chatter’s own accounts', async () => {
    const w = await world('chatter');
    for (const persona of ['writer', 'chatter'] as const) {
      await ok({ _: 'MessageSession', sessionId: w.sessionId, content: [{ type: 'text', text: persona }] }, w.keys[persona]);
    }
    const { events } = (await ok({ _: 'GetSession', sessionId: w.sessionId }, w.keys.chatter)) as { events: { event: { content: string; meta: { accountId: string } } }[] };
    expect(events.map((e) => [e.event.content, e.event.meta.accountId])).toEqual([
      ['hello', idOf(owner)],
      ['writer', idOf(w.keys.writer)],
      ['chatter', idOf(w.keys.chatter)],
    ]);
  });

  it.each(PERSONAS.map((persona, index) => ({ persona, listed: [true, true, true, false, false, false, false][index] })))(
    'lists the session across agents to $persona: $listed',
    async ({ persona, listed }) => {
      const w = await world(persona);
      const page = (await ok({ _: 'ListSessions' }, w.keys[persona])) as { sessions: { id: string }[]; agents: { id: string }[] };
      expect(page.sessions.some((s) => s.id === w.sessionId)).toBe(listed);
      expect(page.agents.some((a) => a.id === w.agentId)).toBe(listed);
    },
  );
});
