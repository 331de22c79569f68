/**
 * Session titles set by the runtime: the agent's own through the status verb, and the automatic one
 * after a session's first exchange — one small tool-less model call over the start of the Log
 * (upstream #nameSessionWithModel). Either way the title is a SessionRenamed with titleSource
 * 'auto', decided against the stream's revision, so a title a person set (titleSource 'user') is
 * never overwritten, however the two race.
 */
import { Inject, Injectable } from '@nestjs/common';
import type OpenAI from 'openai';
import { parseTitle } from '../../commands/sessions/sessions.decider.js';
import { loadSession, sessionStream } from '../../commands/sessions/session-stream.js';
import { SessionGoneError, type RuntimeOrigin } from '../../commands/sessions/session-writer.js';
import type { Actor } from '../../events/catalog/metadata.js';
import { EVENT_LOG } from '../../events/events.module.js';
import type { EventLog } from '../../events/event-log.js';
import { WrongExpectedVersionError } from '../../events/store/errors.js';
import type { RenameOutcome } from '../../verbs/registry.js';
import type { ResolvedModel } from '../model/resolve-model.js';
import type { LogEntry } from '../transcript/log-entry.js';
import { renameId } from './turn-ids.js';
import type { TurnLog } from './turn-log.js';

export const TITLE_TIMEOUT_MS = 30_000;
/** Enough of a conversation to say what it is about. */
const DIGEST_ENTRIES = 12;
const DIGEST_CHARS = 4_000;
const RENAME_ATTEMPTS = 10;

const TITLE_PROMPT =
  'You are a session-titling assistant. Reply with one line and nothing else: a concise title (at most eight words) naming ' +
  'the specific purpose of the conversation you are shown — no quotes, no trailing punctuation, no label.';

@Injectable()
export class SessionTitles {
  constructor(@Inject(EVENT_LOG) private readonly log: EventLog) {}

  /** Names the session unless a person already has; `cause` makes a repeated rename one event. */
  async rename(sessionId: string, title: string, origin: RuntimeOrigin, actor: Actor, cause: string): Promise<RenameOutcome> {
    for (let attempt = 1; ; attempt++) {
      const { session, revision } = await loadSession(this.log, sessionId);
      if (!session || session.deleted) throw new SessionGoneError(sessionId);
      if (session.titleSource === 'user') return { renamed: false, title: session.title ?? '' };
      if (session.title === title && session.titleSource === 'auto') return { renamed: true, title };
      const context = { actor, accountId: session.ownerAccountId, causationId: origin.runId, correlationId: origin.rootRunId };
      try {
        const event = { id: renameId(origin.runId, cause), type: 'SessionRenamed', data: { title, titleSource: 'auto' } };
        await this.log.append(sessionStream(sessionId), [event], context, { expected: revision });
        return { renamed: true, title };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError) || attempt === RENAME_ATTEMPTS) throw error;
      }
    }
  }

  /** After the first exchange, while nobody has named the session: ask the agent's model for a title. */
  async autoTitle(client: OpenAI, model: ResolvedModel, turnLog: TurnLog, origin: RuntimeOrigin, signal: AbortSignal): Promise<void> {
    if (!needsTitle(turnLog)) return;
    const completion = await client.chat.completions.create(
      {
        ...model.modelDefaults,
        model: model.model,
        messages: [
          { role: 'system', content: TITLE_PROMPT },
          { role: 'user', content: titleDigest(turnLog.entries) },
        ],
        stream: false,
      },
      { signal, timeout: TITLE_TIMEOUT_MS },
    );
    const title = titleFromReply(completion.choices[0]?.message.content ?? '');
    if (title) await this.rename(turnLog.session!.id, title, origin, 'system', 'auto-title');
  }
}

/** Untitled by anyone so far (a title given at CreateSession counts), and past its first exchange. */
export function needsTitle({ session, entries }: TurnLog): boolean {
  if (!session || session.titleSource !== undefined || session.title !== undefined) return false;
  const said = (role: 'user' | 'assistant') => entries.some(({ event }) => event.type === 'message' && event.role === role && event.content.trim());
  return said('user') && said('assistant');
}

/** The conversation's start as the titler reads it; a session begun with a person's tool run counts too. */
export function titleDigest(entries: readonly LogEntry[]): string {
  const lines: string[] = [];
  for (const { actor, event } of entries.slice(0, DIGEST_ENTRIES)) {
    if (event.type === 'message' && event.role === 'user') lines.push(`User: ${event.content.slice(0, 1200)}`);
    else if (event.type === 'message' && event.role === 'assistant' && event.content.trim()) lines.push(`Assistant: ${event.content.slice(0, 600)}`);
    else if (event.type === 'tool_call' && actor === 'user') lines.push(`User ran ${event.name}: ${JSON.stringify(event.input ?? {}).slice(0, 600)}`);
  }
  return lines.join('\n\n').slice(0, DIGEST_CHARS);
}

/** The first line, without the quotes, labels and full stops models add anyway; null when nothing is left. */
export function titleFromReply(text: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  const stripped = line
    .replace(/^title\s*:\s*/i, '')
    .replace(/^["'\u201c\u2018*]+|["'\u201d\u2019*]+$/g, '')
    .replace(/[.]+$/, '')
    .trim();
  try {
    return parseTitle(stripped, 'title');
  } catch {
    return null;
  }
}
