/**
 * Bad input to the session actions, field by field: each is refused with a 4xx whose message says
 * what was wrong and what is accepted, and nothing is appended to the log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@ipld/dag-cbor';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_LOG } from '../../src/events/events.module.js';
import type { EventLog } from '../../src/events/event-log.js';
import { AGENTS_PROTOCOL_VERSION } from '../../src/protocol/version.js';
import { newKey, post, signedBody, startTestServer, type KeyPair } from './signed.js';

describe('session input', () => {
  let dir: string;
  let app: INestApplication;
  let base: string;
  let owner: KeyPair;
  let agentId: string;
  let sessionId: string;

  const call = async (action: Record<string, unknown>) => {
    const response = await post(base, await signedBody(owner, action, { protocol: AGENTS_PROTOCOL_VERSION }));
    return { status: response.status, value: decode(response.bytes) as Record<string, unknown> };
  };
  const ok = async (action: Record<string, unknown>) => {
    const answer = await call(action);
    expect(answer.status, JSON.stringify(answer.value)).toBe(200);
    return answer.value;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seed-session-input-'));
    ({ app, base } = await startTestServer(dir));
    owner = newKey();
    await ok({ _: 'SetModelProvider', name: 'local', provider: { type: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1/' } });
    ({ agentId } = (await ok({ _: 'CreateAgent', definition: { name: 'Helper', systemPrompt: 'You help.', modelProvider: 'local', model: 'm' } })) as { agentId: string });
    ({ sessionId } = (await ok({ _: 'CreateSession', agentId })) as { sessionId: string });
    await ok({ _: 'MessageSession', sessionId, content: [{ type: 'text', text: 'first' }] });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const text = (words: string) => ({ type: 'text', text: words });
  const message = (content: unknown) => ({ _: 'MessageSession', sessionId, content });
  const UUID_UPPER = 'A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D';
  const kib = 1024;

  const CASES: [string, () => Record<string, unknown>, number, RegExp | string][] = [
    // Fields any session action names.
    ['a session id that is not a UUID', () => ({ _: 'GetSession', sessionId: 'session-1' }), 400, 'GetSession.sessionId must be a session id as CreateSession answered it (a lower-case UUID), got "session-1"'],
    ['an upper-case UUID', () => ({ _: 'DeleteSession', sessionId: UUID_UPPER }), 400, /^DeleteSession\.sessionId must be a session id as CreateSession answered it \(a lower-case UUID\)/],
    ['a numeric session id', () => ({ _: 'StopSession', sessionId: 7 }), 400, 'StopSession.sessionId must be a session id as CreateSession answered it (a lower-case UUID), got number 7'],
    ['no session id', () => ({ _: 'UpdateSession', title: 'x' }), 400, 'UpdateSession.sessionId must be a session id as CreateSession answered it (a lower-case UUID), got nothing'],
    ['an unknown field', () => ({ _: 'MessageSession', sessionId, content: [text('hi')], priority: 'high' }), 400, 'Unknown field "priority" in MessageSession; accepted fields: sessionId, content, clientMessageId'],
    ['clientRequestId on GetSession', () => ({ _: 'GetSession', sessionId, clientRequestId: 'x' }), 400, 'Unknown field "clientRequestId" in GetSession; accepted fields: sessionId, afterSeq'],
    ['an empty clientMessageId', () => ({ ...message([text('hi')]), clientMessageId: '' }), 400, 'Client request ID must be 1 to 256 characters'],
    // CreateSession
    ['an agent id that is not a UUID', () => ({ _: 'CreateSession', agentId: 'helper' }), 400, 'CreateSession.agentId must be an agent id as CreateAgent answered it (a lower-case UUID), got "helper"'],
    ['an unknown agent', () => ({ _: 'CreateSession', agentId: crypto.randomUUID() }), 404, 'Agent not found'],
    ['a title that is not a string', () => ({ _: 'CreateSession', agentId, title: ['x'] }), 400, 'CreateSession.title must be a string, got a list'],
    ['a blank title', () => ({ _: 'CreateSession', agentId, title: ' \n ' }), 400, 'CreateSession.title must have some text besides white space'],
    // UpdateSession
    ['a rename without a title', () => ({ _: 'UpdateSession', sessionId }), 400, 'UpdateSession.title must be a string, got nothing'],
    ['a rename to nothing', () => ({ _: 'UpdateSession', sessionId, title: '' }), 400, 'UpdateSession.title must have some text besides white space'],
    ['a rename of an unknown session', () => ({ _: 'UpdateSession', sessionId: crypto.randomUUID(), title: 'x' }), 404, 'Session not found'],
    // GetSession
    ['a negative afterSeq', () => ({ _: 'GetSession', sessionId, afterSeq: -1 }), 400, 'GetSession.afterSeq must be a whole number of 0 or more (the last seq the client has), got number -1'],
    ['a fractional afterSeq', () => ({ _: 'GetSession', sessionId, afterSeq: 1.5 }), 400, /^GetSession\.afterSeq must be a whole number of 0 or more/],
    ['an afterSeq that is text', () => ({ _: 'GetSession', sessionId, afterSeq: '3' }), 400, 'GetSession.afterSeq must be a whole number of 0 or more (the last seq the client has), got "3"'],
    // MessageSession content
    ['no content', () => ({ _: 'MessageSession', sessionId }), 400, /^MessageSession\.content must be a non-empty array of parts: \{type: 'text', text, blocks\?\}, \{type: 'context', lines\} or \{type: 'attachment', id\}; got nothing$/],
    ['empty content', () => message([]), 400, /^MessageSession\.content must be a non-empty array of parts: .*; got a list$/],
    ['content that is a string', () => message('hello'), 400, /^MessageSession\.content must be a non-empty array of parts: .*; got "hello"$/],
    ['a part that is not a map', () => message(['hello']), 400, /^MessageSession\.content\[0\] must be a part: \{type: 'text'.*; got "hello"$/],
    ['no text part', () => message([{ type: 'context', lines: ['Open: doc'] }]), 400, 'At least one text part is required'],
    ['only empty text', () => message([text(''), text('  ')]), 400, 'MessageSession needs some text: every text part is empty'],
    ['an unknown part type', () => message([text('hi'), { type: 'image', url: 'x' }]), 400, 'MessageSession.content[1].type must be "text", "context" or "attachment", got "image"'],
    ['an unknown field in a text part', () => message([{ type: 'text', text: 'hi', html: '<b>hi</b>' }]), 400, 'MessageSession.content[0] has unknown field "html"; accepted: type, text, blocks'],
    ['an unknown field in a context part', () => message([text('hi'), { type: 'context', lines: [], text: 'x' }]), 400, 'MessageSession.content[1] has unknown field "text"; accepted: type, lines'],
    ['text that is not a string', () => message([{ type: 'text', text: 5 }]), 400, 'MessageSession.content[0].text must be a string, got number 5'],
    ['context lines that are not strings', () => message([text('hi'), { type: 'context', lines: [1] }]), 400, 'MessageSession.content[1].lines must be an array of strings, got a list'],
    ['blocks that are not a list', () => message([{ type: 'text', text: 'hi', blocks: 'b' }]), 400, 'MessageSession.content[0].blocks must be an array of Seed block nodes, got "b"'],
    ['a block without an id', () => message([{ type: 'text', text: 'hi', blocks: [{ block: { type: 'Paragraph' } }] }]), 400, /^MessageSession\.content\[0\]\.blocks\[0\]\.block must have a non-empty string id and type/],
    ['an attachment not uploaded', () => message([text('see'), { type: 'attachment', id: 'abc' }]), 400, /^Attachment abc was not found in session .*; upload it with UploadSessionAttachment first$/],
    ['too many parts', () => message(Array(257).fill(text('x'))), 400, 'MessageSession.content has 257 parts; at most 256 are accepted'],
    ['oversized text', () => message([text('x'.repeat(256 * kib + 1))]), 413, `The message's text is ${256 * kib + 1} bytes; at most ${256 * kib} are accepted`],
    ['oversized text over several parts', () => message([text('x'.repeat(128 * kib)), text('y'.repeat(128 * kib))]), 413, /^The message's text is 262146 bytes; at most 262144 are accepted$/],
    ['oversized blocks', () => message([{ type: 'text', text: 'hi', blocks: [{ block: { id: 'b', type: 'Paragraph', text: 'w'.repeat(256 * kib) } }] }]), 413, /^The message's blocks are \d+ bytes; at most 262144 are accepted$/],
    ['oversized context', () => message([text('hi'), { type: 'context', lines: ['z'.repeat(64 * kib)] }]), 413, /^The message's context lines are \d+ bytes; at most 65536 are accepted$/],
    ['a message to an unknown session', () => ({ _: 'MessageSession', sessionId: crypto.randomUUID(), content: [text('hi')] }), 404, 'Session not found'],
    // ListSessions
    ['a limit that is text', () => ({ _: 'ListSessions', limit: 'x' }), 400, 'ListSessions.limit must be a number (it is clamped to 1–200), got "x"'],
    ['a cursor that is text', () => ({ _: 'ListSessions', cursor: 'abc' }), 400, 'ListSessions.cursor must be the nextCursor of the previous page, verbatim: {updatedBefore: number, idBefore: string}; got "abc"'],
    ['a cursor without idBefore', () => ({ _: 'ListSessions', cursor: { updatedBefore: 1 } }), 400, /^ListSessions\.cursor must be the nextCursor of the previous page, verbatim: .*; got a map$/],
    ['a cursor with a fractional time', () => ({ _: 'ListSessions', cursor: { updatedBefore: 1.5, idBefore: sessionId } }), 400, /^ListSessions\.cursor must be the nextCursor/],
    ['a cursor with an extra field', () => ({ _: 'ListSessions', cursor: { updatedBefore: 1, idBefore: sessionId, agentId } }), 400, /^ListSessions\.cursor has unknown field "agentId"; it must be the nextCursor/],
    ['includeChildren that is not a boolean', () => ({ _: 'ListSessions', includeChildren: 'no' }), 400, 'ListSessions.includeChildren must be true or false, got "no"'],
    ['a list agent id that is not a UUID', () => ({ _: 'ListSessions', agentId: 'x' }), 400, /^ListSessions\.agentId must be an agent id as CreateAgent answered it/],
    ['a parent session id that is not a UUID', () => ({ _: 'ListSessions', parentSessionId: 'x' }), 400, /^ListSessions\.parentSessionId must be a session id as CreateSession answered it/],
  ];

  it.each(CASES)('refuses %s, appending nothing', async (_, build, status, message) => {
    const log = app.get<EventLog>(EVENT_LOG);
    const head = await log.store.headPosition();
    const answer = await call(build());
    expect(answer.status, JSON.stringify(answer.value)).toBe(status);
    expect(answer.value._).toBe('Error');
    if (typeof message === 'string') expect(answer.value.message).toBe(message);
    else expect(answer.value.message).toMatch(message);
    expect(await log.store.headPosition()).toEqual(head);
  });

  it('still holds just the first message after every refusal', async () => {
    const { events } = (await ok({ _: 'GetSession', sessionId })) as { events: { seq: number; event: { content: string } }[] };
    expect(events.map((e) => [e.seq, e.event.content])).toEqual([[1, 'first']]);
  });
});
