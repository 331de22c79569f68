/**
 * Agents: created by an account against one of its model providers, updated by their owner and its
 * writers (a writer leaves the signing-key grants as they are), deleted by their owner only. Pure: decide(state, command, context) → events. A stranger is told an agent is not
 * found rather than forbidden, so an agent's existence is never revealed to it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { NewEvent } from '../../events/event-log.js';
import type { JsonValue } from '../../events/store/types.js';
import { ApiError } from '../../protocol/api-error.js';
import type { AgentDefinition, AgentPromptBlock } from '../../protocol/agents.js';
import type { CredentialsState } from '../accounts/credentials.js';
import { parseAgentDefinition } from './agent-definition.js';
import { roleOf, type AgentState } from './agent-state.js';

export interface AgentDecisionContext {
  /** The secrets and providers of the account the agent belongs to (the acting one, on create). */
  credentials: CredentialsState;
  /** Markdown → Seed blocks; given, since parsing mints block ids. */
  markdownToBlocks: (markdown: string) => AgentPromptBlock[];
}

export interface CreateAgentCommand {
  agentId: string;
  account: string;
  definition: unknown;
}

export interface UpdateAgentCommand {
  account: string;
  definition: unknown;
}

export interface DeleteAgentCommand {
  account: string;
}

export const agentNotFound = (): ApiError => new ApiError(404, 'Agent not found');

export function decideCreateAgent(agent: AgentState | null, command: CreateAgentCommand, context: AgentDecisionContext): NewEvent[] {
  const definition = checkedDefinition(command.definition, context.credentials, true);
  if (agent) {
    // The id comes from the request's clientRequestId: this is that create run again.
    if (agent.ownerAccountId === command.account) return [];
    throw new ApiError(409, `Agent ${command.agentId} already exists; send CreateAgent with another clientRequestId`);
  }
  return [
    {
      type: 'AgentCreated',
      data: {
        ownerAccountId: command.account,
        definition: definition as unknown as JsonValue,
        systemPromptBlocks: promptBlocks(definition, context) as unknown as JsonValue,
      },
    },
  ];
}

export function decideUpdateAgent(agent: AgentState | null, command: UpdateAgentCommand, context: AgentDecisionContext): NewEvent[] {
  const role = roleOf(agent, command.account);
  if (!agent || role === null) throw agentNotFound();
  if (role !== 'owner' && role !== 'writer') throw new ApiError(403, `Only the agent's owner and writers may update it; this account is a ${role}`);
  const parsed = parseAgentDefinition(command.definition);
  if (role === 'writer' && !sameGrants(agent.definition, parsed)) {
    // spec/http-api.md, ListSigningIdentities: changing definition.signingKeys is owner-only.
    throw new ApiError(403, "Only the agent's owner may change its signing keys (definition.signingKey, definition.signingKeys); send them unchanged");
  }
  const definition = checkedDefinition(parsed, context.credentials, role === 'owner');
  if (isDeepStrictEqual(agent.definition, definition)) return [];
  return [
    {
      type: 'AgentUpdated',
      data: {
        definition: definition as unknown as JsonValue,
        systemPromptBlocks: promptBlocks(definition, context) as unknown as JsonValue,
      },
    },
  ];
}

export function decideDeleteAgent(agent: AgentState | null, command: DeleteAgentCommand): NewEvent[] {
  const role = roleOf(agent, command.account);
  if (role === null) throw agentNotFound();
  if (role !== 'owner') throw new ApiError(403, `Only the agent's owner may delete it; this account is a ${role}`);
  return [{ type: 'AgentDeleted', data: {} }];
}

function sameGrants(before: AgentDefinition, after: AgentDefinition): boolean {
  return before.signingKey === after.signingKey && isDeepStrictEqual(before.signingKeys ?? [], after.signingKeys ?? []);
}

/**
 * The definition's shape, then what it refers to: the owning account's provider and signing keys.
 * Refusals name the account's providers and keys only to the account itself — a writer is told what
 * was wrong, not what its owner holds.
 */
function checkedDefinition(input: unknown, credentials: CredentialsState, listNames: boolean): AgentDefinition {
  const namesOf = (kind: string, names: string[]): string => (listNames ? listed(kind, names) : `ask the agent's owner which ${kind} it has`);
  const definition = parseAgentDefinition(input);
  if (!credentials.providers.has(definition.modelProvider)) {
    throw new ApiError(
      400,
      `Model provider "${definition.modelProvider}" (definition.modelProvider) does not exist for this account; ` +
        `create it first with SetModelProvider (${namesOf('providers', [...credentials.providers.keys()])})`,
    );
  }
  const keys = [
    ...(definition.signingKey === undefined ? [] : [['definition.signingKey', definition.signingKey] as const]),
    ...(definition.signingKeys ?? []).map((key, index) => [`definition.signingKeys[${index}]`, key] as const),
  ];
  const accountKeys = [...credentials.secrets].filter(([, secret]) => secret.metadata?.kind === 'hm-account-key').map(([name]) => name);
  for (const [field, key] of keys) {
    if (!accountKeys.includes(key)) {
      throw new ApiError(
        400,
        `Signing key "${key}" (${field}) is not an hm-account-key secret of this account (${namesOf('hm-account-key secrets', accountKeys)})`,
      );
    }
  }
  return definition;
}

function promptBlocks(definition: AgentDefinition, context: AgentDecisionContext): AgentPromptBlock[] {
  return typeof definition.systemPrompt === 'string' ? context.markdownToBlocks(definition.systemPrompt) : definition.systemPrompt;
}

function listed(kind: string, names: string[]): string {
  return names.length ? `its ${kind}: ${names.sort().join(', ')}` : `it has no ${kind}`;
}
