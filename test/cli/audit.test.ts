/**
 * `seed-agents audit`, run as an auditor would — the compiled bin against a data directory a server
 * wrote — and against a store file altered behind the server's back.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode } from '@ipld/dag-cbor';
import Database from 'better-sqlite3';
import { principalToString } from '@seed-hypermedia/client/blobs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionWriter } from '../../src/commands/sessions/session-writer.js';
import { logEventCid } from '../../src/events/log-chain.js';
import { SqliteEventStore } from '../../src/events/store/sqlite/sqlite-event-store.js';
import type { RecordedEvent } from '../../src/events/store/types.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from '../gateway/signed.js';
import { collect } from '../store/helpers.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
/** `line` exactly, with an ISO time wherever it says <T>. */
const withTime = (line: string) => new RegExp(`^${line.split('<T>').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(ISO)}$`);

describe('seed-agents audit', () => {
  let dir: string;
  const audit = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, 'audit', ...args], { env: { ...process.env, SEED_AGENTS_DATA_DIR: dir, SEED_AGENTS_EVENTS_FILE: '' }, encoding: 'utf8' });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-audit-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** The raw Log events of a session, read back from the file as it is now. */
  async function storedLog(sessionId: string): Promise<RecordedEvent[]> {
    const store = new SqliteEventStore(join(dir, 'events.db'));
    try {
      return (await collect(store.readStream(`session-${sessionId}`))).filter((e) => ['message', 'tool_call', 'tool_result', 'error'].includes(e.type));
    } finally {
      await store.close();
    }
  }

  /** Changes one stored event in place, as someone with the file (and not the server) could. */
  function tamper(sql: string, ...params: unknown[]): void {
    const db = new Database(join(dir, 'events.db'));
    try {
      expect(db.prepare(sql).run(...params).changes).toBe(1);
    } finally {
      db.close();
    }
  }

  /**
   * Through a server: a session with three user messages and a runtime turn (tool call, failed tool
   * result, error, assistant reply) — seven Log events — and a second session, deleted.
   */
  async function recordSessions(): Promise<{ sessionId: string; deletedId: string; user: KeyPair }> {
    const { app, base } = await startTestServer(dir);
    const user = newKey();
    const ok = async (action: Record<string, unknown>) => {
      const response = await post(base, await signedBody(user, action, { protocol: AGENTS_PROTOCOL_VERSION }));
      const value = decode(response.bytes) as Record<string, unknown>;
      expect(response.status, JSON.stringify(value)).toBe(200);
      return value;
    };
    try {
      await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
      const { agentId } = (await ok({ _: 'CreateAgent', definition: { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' } })) as { agentId: string };
      const { sessionId } = (await ok({ _: 'CreateSession', agentId, title: 'Audited' })) as { sessionId: string };
      for (const words of ['Hello there', 'Please read   the\nnotes and summarize every single one of them for me, in order of importance', 'Thanks']) {
        await ok({ _: 'MessageSession', sessionId, content: [{ type: 'text', text: words }] });
      }
      await ok({ _: 'UpdateSession', sessionId, title: 'Renamed midway' });
      await app.get(SessionWriter).appendRuntime(
        sessionId,
        [
          { type: 'tool_call', data: { id: 'call-1', name: 'read', input: { path: '~/notes' } }, actor: 'agent' },
          { type: 'tool_result', data: { toolCallId: 'call-1', name: 'read', error: 'No such file: ~/notes' }, actor: 'agent' },
          { type: 'error', data: { message: 'Model provider "local" is unreachable' }, actor: 'system' },
          { type: 'message', data: { role: 'assistant', content: 'I could not read the notes.' }, actor: 'agent' },
        ],
        { runId: 'run-test', rootRunId: 'run-test' },
      );
      const { sessionId: deletedId } = (await ok({ _: 'CreateSession', agentId })) as { sessionId: string };
      await ok({ _: 'MessageSession', sessionId: deletedId, content: [{ type: 'text', text: 'gone soon' }] });
      await ok({ _: 'DeleteSession', sessionId: deletedId });
      return { sessionId, deletedId, user };
    } finally {
      await app.close();
    }
  }

  it('prints the Log one line per event and verifies its chain', async () => {
    const { sessionId, user } = await recordSessions();
    const result = audit(sessionId);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const principal = principalToString(user.principal);
    const signer = `${principal.slice(0, 8)}…${principal.slice(-4)}`;
    expect(lines[0]).toMatch(/^session [0-9a-f-]{36} \(agent [0-9a-f-]{36}\)$/);
    const expected = [
      `    1  <T>  user    ${signer}  message      user: Hello there`,
      // Whitespace collapsed, and cut at 60 characters.
      `    2  <T>  user    ${signer}  message      user: Please read the notes and summarize every single one of the…`,
      `    3  <T>  user    ${signer}  message      user: Thanks`,
      `    4  <T>  agent   -              tool_call    read {"path":"~/notes"}`,
      `    5  <T>  agent   -              tool_result  read -> error: No such file: ~/notes`,
      `    6  <T>  system  -              error        Model provider "local" is unreachable`,
      `    7  <T>  agent   -              message      assistant: I could not read the notes.`,
    ];
    expect(lines.slice(1, 8)).toHaveLength(7);
    lines.slice(1, 8).forEach((line, i) => expect(line).toMatch(withTime(expected[i]!)));
    const stored = await storedLog(sessionId);
    expect(lines.slice(8)).toEqual(['chain verified: 7 events', `head: ${logEventCid(stored.at(-1)!)} (keep it: it vouches for the last event, which no later event chains)`]);

    // --data-dir wins over the environment.
    const elsewhere = spawnSync(process.execPath, [BIN, 'audit', sessionId, '--data-dir', dir], {
      env: { ...process.env, SEED_AGENTS_DATA_DIR: join(dir, 'nowhere') },
      encoding: 'utf8',
    });
    expect([elsewhere.status, elsewhere.stdout]).toEqual([0, result.stdout]);
  });

  it('names the event after an altered one: the first whose recorded prev no longer matches', async () => {
    const { sessionId } = await recordSessions();
    const [, , third, fourth, fifth] = await storedLog(sessionId);
    tamper("UPDATE events SET data = json_set(data, '$.content', 'I never said this') WHERE stream = ? AND id = ?", `session-${sessionId}`, third!.id);

    const result = audit(sessionId);
    expect(result.status).toBe(1);
    const altered = (await storedLog(sessionId))[2]!;
    expect(logEventCid(altered)).not.toBe(fourth!.metadata.prev);
    expect(result.stderr).toBe(
      `seed-agents: chain broken at seq 4 (event ${fourth!.id}): prev does not match the event before it (seq 3, event ${third!.id}): ` +
        `expected ${logEventCid(altered)} (its CID as stored now), found ${String(fourth!.metadata.prev)}\n`,
    );
    const lines = result.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('    3 '))).toMatch(/user: I never said this$/);
    expect(lines.find((l) => l.startsWith('    4 '))).toMatch(/  <- first mismatch$/);
    expect(result.stdout).not.toMatch(/chain verified/);

    // Mending the next link just moves the break one event on.
    tamper("UPDATE events SET metadata = json_set(metadata, '$.prev', ?) WHERE stream = ? AND id = ?", logEventCid(altered), `session-${sessionId}`, fourth!.id);
    const mended = audit(sessionId);
    expect(mended.status).toBe(1);
    expect(mended.stderr).toMatch(new RegExp(`^seed-agents: chain broken at seq 5 \\(event ${fifth!.id}\\): prev does not match the event before it \\(seq 4, event ${fourth!.id}\\)`));
  });

  it('sees an altered actor, and a removed event, at the event that follows', async () => {
    const { sessionId } = await recordSessions();
    const [, second, third, fourth, fifth] = await storedLog(sessionId);
    tamper("UPDATE events SET metadata = json_set(metadata, '$.actor', 'agent') WHERE stream = ? AND id = ?", `session-${sessionId}`, second!.id);
    const actor = audit(sessionId);
    expect(actor.status).toBe(1);
    expect(actor.stderr).toMatch(new RegExp(`^seed-agents: chain broken at seq 3 \\(event ${third!.id}\\): prev does not match the event before it \\(seq 2, event ${second!.id}\\)`));

    tamper("UPDATE events SET metadata = json_set(metadata, '$.actor', 'user') WHERE stream = ? AND id = ?", `session-${sessionId}`, second!.id);
    expect(audit(sessionId).status).toBe(0);
    tamper('DELETE FROM events WHERE stream = ? AND id = ?', `session-${sessionId}`, fourth!.id);
    const removed = audit(sessionId);
    expect(removed.status).toBe(1);
    expect(removed.stderr).toBe(
      `seed-agents: chain broken at seq 5 (event ${fifth!.id}): seq is 5, expected 4; prev does not match the event before it ` +
        `(seq 3, event ${third!.id}): expected ${logEventCid(third!)} (its CID as stored now), found ${String(fifth!.metadata.prev)}\n`,
    );
  });

  it('cannot see an edit to the last event by the chain alone, but the head CID it printed changes', async () => {
    const { sessionId } = await recordSessions();
    const before = audit(sessionId);
    const last = (await storedLog(sessionId)).at(-1)!;
    tamper("UPDATE events SET data = json_set(data, '$.content', 'Everything is fine.') WHERE stream = ? AND id = ?", `session-${sessionId}`, last.id);
    const after = audit(sessionId);
    expect(after.status).toBe(0);
    const head = (output: string) => /^head: (\S+)/m.exec(output)?.[1];
    expect(head(after.stdout)).toBeDefined();
    expect(head(after.stdout)).not.toBe(head(before.stdout));
  });

  it('reports events from before the chain as unchained, not as tampering — but only before the chain', async () => {
    const store = new SqliteEventStore(join(dir, 'events.db'));
    const sessionId = crypto.randomUUID();
    const stream = `session-${sessionId}`;
    // Version 1: no v, actor, seq, at or prev — a Log from before the chain existed.
    await store.append(stream, [
      { type: 'message', data: { role: 'user', content: 'old question' }, metadata: { accountId: 'z6MkOldAccount', causationId: 'c', correlationId: 'c' } },
      { type: 'message', data: { role: 'assistant', content: 'old answer' }, metadata: { accountId: 'z6MkOldAccount', causationId: 'c', correlationId: 'c' } },
    ]);
    const legacyOnly = audit(sessionId);
    expect(legacyOnly.status).toBe(0);
    expect(legacyOnly.stdout).toMatch(new RegExp(`^session ${sessionId} \\(no SessionCreated: a Log from before sessions were created explicitly\\)\n`));
    expect(legacyOnly.stdout).toMatch(new RegExp(`\n    1  ${ISO}  user    -              message      user: old question  \\(unchained: written before the chain existed\\)\n`));
    expect(legacyOnly.stdout).toMatch(/\n {4}2 .* assistant: old answer {2}\(unchained: written before the chain existed\)\n/);
    expect(legacyOnly.stdout).toMatch(/\nno chain to verify: 2 earlier events unchained \(written before the chain existed\)\n/);

    // The first chained event records the CID of the last unchained one.
    const [, lastLegacy] = await collect(store.readStream(stream));
    const chained = (seq: number, prev: string | undefined) => ({
      type: 'message',
      data: { role: 'user', content: `new ${seq}` },
      metadata: { v: 2, actor: 'user', accountId: 'z6MkOldAccount', causationId: 'c', correlationId: 'c', at: Date.now(), seq, ...(prev ? { prev } : {}) },
    });
    await store.append(stream, [chained(3, logEventCid(lastLegacy!))]);
    const mixed = audit(sessionId);
    expect(mixed.status).toBe(0);
    expect(mixed.stdout).toMatch(/\n {4}3 .* user: new 3\n/);
    expect(mixed.stdout).toMatch(/\nchain verified: 1 event; 2 earlier events unchained \(written before the chain existed\)\n/);

    // Written as version 1 after the chain began: no server writes that, so it is not let off.
    await store.append(stream, [{ type: 'message', data: { role: 'user', content: 'slipped in' }, metadata: { accountId: 'z6MkOldAccount', causationId: 'c', correlationId: 'c' } }]);
    const [, , , slipped] = await collect(store.readStream(stream));
    await store.close();
    const late = audit(sessionId);
    expect(late.status).toBe(1);
    expect(late.stderr).toBe(
      `seed-agents: chain broken at seq 4 (event ${slipped!.id}): it is unchained (schema version 1) but follows chained events, ` +
        'and only events written before the chain existed are unchained\n',
    );
  });

  it('refuses a chained first event that records a prev, and a seq that skips', async () => {
    const store = new SqliteEventStore(join(dir, 'events.db'));
    const metadata = { v: 2, actor: 'user', accountId: 'z6MkA', causationId: 'c', correlationId: 'c', at: Date.now() };
    const [first, skipping] = [crypto.randomUUID(), crypto.randomUUID()];
    await store.append(`session-${first}`, [{ type: 'message', data: { role: 'user', content: 'hi' }, metadata: { ...metadata, seq: 1, prev: 'bafyinvented' } }]);
    await store.append(`session-${skipping}`, [{ type: 'message', data: { role: 'user', content: 'hi' }, metadata: { ...metadata, seq: 1 } }]);
    const [one] = await collect(store.readStream(`session-${skipping}`));
    await store.append(`session-${skipping}`, [{ type: 'message', data: { role: 'user', content: 'again' }, metadata: { ...metadata, seq: 3, prev: logEventCid(one!) } }]);
    await store.close();

    const invented = audit(first);
    expect(invented.status).toBe(1);
    expect(invented.stderr).toMatch(/chain broken at seq 1 \(event [0-9a-f-]{36}\): it records prev bafyinvented, but it is the session's first Log event, which has none\n$/);
    const skipped = audit(skipping);
    expect(skipped.status).toBe(1);
    expect(skipped.stderr).toMatch(/chain broken at seq 3 \(event [0-9a-f-]{36}\): seq is 3, expected 2\n$/);
  });

  it('refuses, with exit code 2, a missing session id, an unknown session, a deleted one and a directory with no store', async () => {
    const { deletedId } = await recordSessions();
    const none = audit();
    expect([none.status, none.stderr]).toEqual([2, 'seed-agents: audit: give exactly one session id: seed-agents audit <sessionId> [--data-dir DIR]\n']);
    expect(audit('a', 'b').status).toBe(2);
    expect([audit('a b').status, audit('a b').stderr]).toEqual([2, 'seed-agents: audit: "a b" is not a session id: one has no white space or control characters, like the UUID CreateSession answers\n']);
    expect(audit('x', '--nope').stderr).toMatch(/^seed-agents: audit: Unknown option '--nope'/);

    const unknown = crypto.randomUUID();
    expect([audit(unknown).status, audit(unknown).stderr]).toEqual([2, `seed-agents: audit: session ${unknown} does not exist (no stream session-${unknown} in this store)\n`]);
    const deleted = audit(deletedId);
    expect(deleted.status).toBe(2);
    expect(deleted.stderr).toMatch(new RegExp(`^seed-agents: audit: session ${deletedId} was deleted at ${ISO}; its Log is removed, so there is nothing to audit\n$`));

    const empty = join(dir, 'empty');
    const missing = audit(unknown, '--data-dir', empty);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`seed-agents: audit: there is no event store at ${join(empty, 'events.db')}; give the server's data directory with --data-dir or SEED_AGENTS_DATA_DIR\n`);
    expect(existsSync(empty)).toBe(false);
  });
});
