/**
 * The `status` verb (spec/tools-and-verbs.md, "status"): the session's agent-maintained title and
 * description. The title is the session's own (a SessionRenamed, never over a title a person gave
 * it); the description lives where the call put it, in the Log, and the latest one is current.
 */
import { parseTitle } from '../commands/sessions/sessions.decider.js';
import type { JsonObject } from '../events/store/types.js';
import { MAX_SESSION_TITLE_CHARS } from '../protocol/sessions.js';
import type { LogEntry } from '../runtime/transcript/log-entry.js';
import type { Verb } from './registry.js';

export const MAX_DESCRIPTION_CHARS = 1024;

interface StatusInput {
  title?: string;
  description?: string;
}

export const statusVerb: Verb<StatusInput> = {
  name: 'status',
  description:
    "Set this session's title and description, passing only the fields that change. The title names what the whole session " +
    'is about: set it once, early. The description is the live status: update it at milestones and once more when the work ' +
    'finishes. The current values are in the <session_status> block, so only call this for a change. A title the user gave ' +
    'the session is kept.',
  input: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      title: { type: 'string', minLength: 1, maxLength: MAX_SESSION_TITLE_CHARS },
      description: { type: 'string', minLength: 1, maxLength: MAX_DESCRIPTION_CHARS },
    },
  },
  async execute(input, context) {
    const applied: JsonObject = {};
    if (input.title !== undefined) {
      const { renamed, title } = await context.renameSession(parseTitle(input.title, 'title'));
      applied.title = title;
      if (!renamed) applied.note = 'The user named this session, so their title stays.';
    }
    if (input.description !== undefined) {
      const description = input.description.trim();
      if (!description) throw new Error('description must have some text besides white space');
      applied.description = description;
    }
    return applied;
  },
};

/** The description the session's last successful status call set; undefined before one did. */
export function currentDescription(entries: readonly LogEntry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const { event } = entries[index]!;
    if (event.type !== 'tool_result' || event.name !== statusVerb.name || event.error !== undefined) continue;
    const description = (event.output as { description?: unknown } | undefined)?.description;
    if (typeof description === 'string') return description;
  }
  return undefined;
}

/** Shown every turn, so a status call is always a change and never a restatement. */
export function sessionStatusBlock(status: { title: string | undefined; description: string | undefined }): string {
  const values = JSON.stringify({ ...(status.title ? { title: status.title } : {}), ...(status.description ? { description: status.description } : {}) });
  return ['<session_status>', values.replace(/</g, '\\u003c'), '</session_status>'].join('\n');
}
