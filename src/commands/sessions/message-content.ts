/**
 * The content parts of a MessageSession (spec/http-api.md, "MessageSession"), checked and folded into
 * one user message: the text parts are the words, their blocks the rich form, and every context
 * part's lines collapse into `contextLines`, which reach the model but never the transcript content.
 */
import { ApiError } from '../../protocol/api-error.js';
import type { AgentPromptBlock } from '../../protocol/agents.js';
import { checkJson, describe, isPlainObject } from '../accounts/credentials-input.js';
import { parseBlockNodes } from '../agents/agent-definition.js';

export const MAX_MESSAGE_TEXT_BYTES = 256 * 1024;
export const MAX_MESSAGE_BLOCKS_BYTES = 256 * 1024;
export const MAX_CONTEXT_BYTES = 64 * 1024;
export const MAX_CONTENT_PARTS = 256;

const PART_SHAPES = "{type: 'text', text, blocks?}, {type: 'context', lines} or {type: 'attachment', id}";

export interface UserMessage {
  content: string;
  rawMarkdown: string;
  blocks?: AgentPromptBlock[];
  contextLines?: string[];
  /** Ids of attachment parts, for the caller to resolve against the session's attachments. */
  attachmentIds: string[];
}

export function parseMessageContent(value: unknown): UserMessage {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ApiError(400, `MessageSession.content must be a non-empty array of parts: ${PART_SHAPES}; got ${describe(value)}`);
  }
  if (value.length > MAX_CONTENT_PARTS) {
    throw new ApiError(400, `MessageSession.content has ${value.length} parts; at most ${MAX_CONTENT_PARTS} are accepted`);
  }
  const texts: string[] = [];
  const blocks: AgentPromptBlock[] = [];
  const contextLines: string[] = [];
  const attachmentIds: string[] = [];
  value.forEach((part: unknown, index) => {
    const at = `MessageSession.content[${index}]`;
    if (!isPlainObject(part)) throw new ApiError(400, `${at} must be a part: ${PART_SHAPES}; got ${describe(part)}`);
    const allowed = part.type === 'text' ? ['type', 'text', 'blocks'] : part.type === 'context' ? ['type', 'lines'] : ['type', 'id'];
    const unknown = Object.keys(part).filter((key) => !allowed.includes(key));
    if (part.type !== 'text' && part.type !== 'context' && part.type !== 'attachment') {
      throw new ApiError(400, `${at}.type must be "text", "context" or "attachment", got ${describe(part.type)}`);
    }
    if (unknown.length) throw new ApiError(400, `${at} has unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; accepted: ${allowed.join(', ')}`);
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new ApiError(400, `${at}.text must be a string, got ${describe(part.text)}`);
      texts.push(part.text);
      if (part.blocks !== undefined) {
        if (!Array.isArray(part.blocks)) throw new ApiError(400, `${at}.blocks must be an array of Seed block nodes, got ${describe(part.blocks)}`);
        blocks.push(...parseBlockNodes(part.blocks, `${at}.blocks`));
      }
    } else if (part.type === 'context') {
      if (!Array.isArray(part.lines) || part.lines.some((line) => typeof line !== 'string')) {
        throw new ApiError(400, `${at}.lines must be an array of strings, got ${describe(part.lines)}`);
      }
      contextLines.push(...(part.lines as string[]));
    } else {
      if (typeof part.id !== 'string' || part.id === '') throw new ApiError(400, `${at}.id must be an attachment id, got ${describe(part.id)}`);
      attachmentIds.push(part.id);
    }
  });
  if (texts.length === 0) throw new ApiError(400, 'At least one text part is required');
  const content = texts.join('\n\n');
  if (content.trim() === '') throw new ApiError(400, 'MessageSession needs some text: every text part is empty');
  bounded('text', Buffer.byteLength(content), MAX_MESSAGE_TEXT_BYTES);
  if (blocks.length) {
    checkJson(blocks, 'MessageSession.content blocks');
    bounded('blocks', Buffer.byteLength(JSON.stringify(blocks)), MAX_MESSAGE_BLOCKS_BYTES);
  }
  bounded('context lines', Buffer.byteLength(JSON.stringify(contextLines)), MAX_CONTEXT_BYTES);
  return {
    content,
    rawMarkdown: content,
    ...(blocks.length ? { blocks } : {}),
    ...(contextLines.length ? { contextLines } : {}),
    attachmentIds,
  };
}

function bounded(what: string, bytes: number, max: number): void {
  if (bytes > max) throw new ApiError(413, `The message's ${what} ${what === 'text' ? 'is' : 'are'} ${bytes} bytes; at most ${max} are accepted`);
}
