/**
 * The shape checks of an AgentDefinition (spec/http-api.md, "Agent definition"), made before any
 * decision. Each refusal names the field, what was wrong, and what is accepted.
 */
import type { JsonObject } from '../../events/store/types.js';
import { ApiError } from '../../protocol/api-error.js';
import {
  MAX_AGENT_TOOLS,
  MAX_TOOL_NAME_BYTES,
  MAX_TOOLS_BYTES,
  REASONING_LEVELS,
  type AgentDefinition,
  type AgentPromptBlock,
  type ReasoningLevel,
} from '../../protocol/agents.js';
import { checkJson, describe, isPlainObject, jsonObject } from '../accounts/credentials-input.js';

const DEFINITION_FIELDS = [
  'name',
  'systemPrompt',
  'modelProvider',
  'model',
  'reasoningLevel',
  'tools',
  'signingKey',
  'signingKeys',
  'metadata',
] as const;
const BLOCK_NODE_FIELDS = ['block', 'children'] as const;
export const MAX_AGENT_METADATA_BYTES = 16 * 1024;
/** Deeper trees are no prompt anyone writes; the bound keeps the recursive checks off the stack limit. */
export const MAX_PROMPT_DEPTH = 32;
const BLOCK_SHAPE = 'an array of Seed block nodes {block: {id, type, ...}, children?}';

export function parseAgentDefinition(value: unknown): AgentDefinition {
  if (!isPlainObject(value)) {
    throw new ApiError(400, `definition must be an AgentDefinition map {name, systemPrompt, modelProvider, model, ...}, got ${describe(value)}`);
  }
  const unknown = Object.keys(value).filter((key) => !(DEFINITION_FIELDS as readonly string[]).includes(key));
  if (unknown.length) {
    throw new ApiError(
      400,
      `definition has unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; accepted: ${DEFINITION_FIELDS.join(', ')}`,
    );
  }
  const { name, systemPrompt, modelProvider, model, reasoningLevel, tools, signingKey, signingKeys, metadata } = value;
  if (typeof name !== 'string' || name.trim() === '') throw new ApiError(400, 'Agent name is required');
  if (typeof modelProvider !== 'string' || modelProvider === '') {
    throw new ApiError(400, `definition.modelProvider is required: the name of one of the account's model providers; got ${describe(modelProvider)}`);
  }
  if (typeof model !== 'string' || model === '') {
    throw new ApiError(400, `definition.model is required: a model id of the provider, as a string; got ${describe(model)}`);
  }
  if (reasoningLevel !== undefined && !(REASONING_LEVELS as readonly unknown[]).includes(reasoningLevel)) {
    throw new ApiError(
      400,
      `definition.reasoningLevel must be one of ${REASONING_LEVELS.join(', ')}, or absent for off; got ${describe(reasoningLevel)}`,
    );
  }
  return {
    name,
    systemPrompt: parseSystemPrompt(systemPrompt),
    modelProvider,
    model,
    ...(reasoningLevel === undefined ? {} : { reasoningLevel: reasoningLevel as ReasoningLevel }),
    ...(tools === undefined ? {} : { tools: parseTools(tools) }),
    ...(signingKey === undefined ? {} : { signingKey: parseKeyName(signingKey, 'definition.signingKey') }),
    ...(signingKeys === undefined ? {} : { signingKeys: parseKeyNames(signingKeys) }),
    ...(metadata === undefined ? {} : { metadata: jsonObject(metadata, 'definition.metadata', MAX_AGENT_METADATA_BYTES, '16 KiB') }),
  };
}

function parseSystemPrompt(value: unknown): string | AgentPromptBlock[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) {
    throw new ApiError(400, `definition.systemPrompt is required: a markdown string or ${BLOCK_SHAPE}; got ${describe(value)}`);
  }
  return parseBlockNodes(value, 'definition.systemPrompt', 1);
}

export function parseBlockNodes(nodes: unknown[], path: string, depth = 1): AgentPromptBlock[] {
  if (depth > MAX_PROMPT_DEPTH) {
    throw new ApiError(400, `${path} nests blocks more than ${MAX_PROMPT_DEPTH} levels deep; at most ${MAX_PROMPT_DEPTH} are accepted`);
  }
  return nodes.map((node, index) => {
    const at = `${path}[${index}]`;
    if (!isPlainObject(node)) throw new ApiError(400, `${at} must be a block node {block: {id, type, ...}, children?}, got ${describe(node)}`);
    const unknown = Object.keys(node).filter((key) => !(BLOCK_NODE_FIELDS as readonly string[]).includes(key));
    if (unknown.length) {
      throw new ApiError(400, `${at} has unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}; accepted: block, children`);
    }
    const block = node.block;
    if (!isPlainObject(block)) throw new ApiError(400, `${at}.block must be a map {id, type, ...}, got ${describe(block)}`);
    checkJson(block, `${at}.block`);
    if (typeof block.id !== 'string' || block.id === '' || typeof block.type !== 'string' || block.type === '') {
      throw new ApiError(400, `${at}.block must have a non-empty string id and type, got id ${describe(block.id)} and type ${describe(block.type)}`);
    }
    const parsed = { block: block as JsonObject & { id: string; type: string } };
    if (node.children === undefined) return parsed;
    if (!Array.isArray(node.children)) throw new ApiError(400, `${at}.children must be ${BLOCK_SHAPE}, got ${describe(node.children)}`);
    return { ...parsed, children: parseBlockNodes(node.children, `${at}.children`, depth + 1) };
  });
}

function parseTools(value: unknown): string[] {
  if (!Array.isArray(value)) throw new ApiError(400, `definition.tools must be a list of tool names, or absent to grant every tool; got ${describe(value)}`);
  if (value.length > MAX_AGENT_TOOLS) {
    throw new ApiError(400, `definition.tools has ${value.length} names; at most ${MAX_AGENT_TOOLS} are accepted`);
  }
  for (const [index, tool] of value.entries()) {
    if (typeof tool !== 'string' || tool === '') {
      throw new ApiError(400, `definition.tools[${index}] must be a non-empty tool name, got ${describe(tool)}`);
    }
    const bytes = Buffer.byteLength(tool, 'utf8');
    if (bytes > MAX_TOOL_NAME_BYTES) {
      throw new ApiError(400, `Tool name is too large: definition.tools[${index}] is ${bytes} bytes; at most ${MAX_TOOL_NAME_BYTES} are accepted`);
    }
  }
  const total = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (total > MAX_TOOLS_BYTES) {
    throw new ApiError(400, `definition.tools is ${total} bytes as JSON; at most ${MAX_TOOLS_BYTES} (4 KiB) are accepted`);
  }
  return value as string[];
}

function parseKeyName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new ApiError(400, `${field} must be the name of one of the account's hm-account-key secrets, got ${describe(value)}`);
  }
  return value;
}

function parseKeyNames(value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new ApiError(400, `definition.signingKeys must be a list of the account's hm-account-key secret names, got ${describe(value)}`);
  }
  return value.map((name, index) => parseKeyName(name, `definition.signingKeys[${index}]`));
}
