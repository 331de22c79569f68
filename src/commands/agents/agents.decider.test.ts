import { describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/api-error.js';
import type { AgentPromptBlock } from '../../protocol/agents.js';
import { evolveCredentials, NO_CREDENTIALS, type CredentialsState } from '../accounts/credentials.js';
import { evolveAgent, type AgentState } from './agent-state.js';
import { decideCreateAgent, decideDeleteAgent, decideUpdateAgent, type AgentDecisionContext } from './agents.decider.js';

const OWNER = 'z6MkOwner';
const STRANGER = 'z6MkStranger';
const AGENT_ID = '00000000-0000-4000-8000-000000000001';

/** Deterministic, unlike the real parser, which mints block ids. */
const markdownToBlocks = (markdown: string): AgentPromptBlock[] => [{ block: { id: 'b1', type: 'Paragraph', text: markdown } }];

function credentials(...events: { type: string; data: unknown }[]): CredentialsState {
  return events.reduce((s, e) => evolveCredentials(s, { ...e, metadata: { at: 1 } }), NO_CREDENTIALS);
}
const withProvider = credentials(
  { type: 'SecretSet', data: { id: 's1', name: 'openai-key', fingerprint: 'f' } },
  { type: 'SecretSet', data: { id: 's2', name: 'my-hm-key', fingerprint: 'g', metadata: { kind: 'hm-account-key' } } },
  { type: 'ModelProviderSet', data: { id: 'p1', name: 'main', config: { type: 'openai', secretRefs: { apiKey: 'openai-key' } } } },
);
const context: AgentDecisionContext = { credentials: withProvider, markdownToBlocks };

const definition = { name: 'Helper', systemPrompt: 'You are **helpful**.', modelProvider: 'main', model: 'gpt-5' };

function given(...events: { type: string; data: unknown }[]): AgentState | null {
  return events.reduce<AgentState | null>((s, e, i) => evolveAgent(s, { ...e, metadata: { at: 10 + i } }, AGENT_ID), null);
}
const created = { type: 'AgentCreated', data: { ownerAccountId: OWNER, definition, systemPromptBlocks: markdownToBlocks(definition.systemPrompt) } };

function refusal(decide: () => unknown): ApiError {
  try {
    decide();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const create = (def: unknown, ctx = context) => decideCreateAgent(null, { agentId: AGENT_ID, account: OWNER, definition: def }, ctx);

describe('agents decider', () => {
  describe('CreateAgent', () => {
    it('creates an agent on one of the account’s providers, its markdown prompt kept and parsed into blocks', () => {
      expect(create(definition)).toEqual([
        {
          type: 'AgentCreated',
          data: { ownerAccountId: OWNER, definition, systemPromptBlocks: [{ block: { id: 'b1', type: 'Paragraph', text: 'You are **helpful**.' } }] },
        },
      ]);
    });

    it('keeps a block prompt as given, and every optional field', () => {
      const blocks = [{ block: { id: 'x', type: 'Heading', text: 'Role' }, children: [{ block: { id: 'y', type: 'Paragraph', text: 'Help.' } }] }];
      const full = {
        ...definition,
        systemPrompt: blocks,
        reasoningLevel: 'high',
        tools: ['search', 'publish'],
        signingKey: 'my-hm-key',
        signingKeys: ['my-hm-key'],
        metadata: { color: 'blue' },
      };
      expect(create(full)).toEqual([{ type: 'AgentCreated', data: { ownerAccountId: OWNER, definition: full, systemPromptBlocks: blocks } }]);
    });

    it('is a no-op when the same request created the agent already', () => {
      expect(decideCreateAgent(given(created), { agentId: AGENT_ID, account: OWNER, definition }, context)).toEqual([]);
    });

    const refusals: [string, unknown, RegExp | string][] = [
      ['a definition that is no map', 'Helper', /^definition must be an AgentDefinition map .*, got "Helper"$/],
      ['an unknown definition field', { ...definition, mcpServers: [] }, /^definition has unknown field "mcpServers"; accepted: name, systemPrompt, /],
      ['a missing name', { ...definition, name: undefined }, 'Agent name is required'],
      ['a blank name', { ...definition, name: '  ' }, 'Agent name is required'],
      ['a missing system prompt', { ...definition, systemPrompt: undefined }, /^definition.systemPrompt is required: a markdown string or an array of Seed block nodes/],
      ['a block without an id', { ...definition, systemPrompt: [{ block: { type: 'Paragraph' } }] }, /^definition.systemPrompt\[0\].block must have a non-empty string id and type, got id nothing/],
      ['a block node with an unknown field', { ...definition, systemPrompt: [{ block: { id: 'a', type: 'P' }, extra: 1 }] }, /has unknown field "extra"; accepted: block, children$/],
      ['children that are no list', { ...definition, systemPrompt: [{ block: { id: 'a', type: 'P' }, children: {} }] }, /^definition.systemPrompt\[0\].children must be an array of Seed block nodes/],
      ['a missing provider', { ...definition, modelProvider: undefined }, /^definition.modelProvider is required: the name of one of the account's model providers; got nothing$/],
      ['a provider the account lacks', { ...definition, modelProvider: 'other' }, 'Model provider "other" (definition.modelProvider) does not exist for this account; create it first with SetModelProvider (its providers: main)'],
      ['a missing model', { ...definition, model: 7 }, /^definition.model is required: a model id of the provider, as a string; got number 7$/],
      ['an unknown reasoning level', { ...definition, reasoningLevel: 'max' }, 'definition.reasoningLevel must be one of minimal, low, medium, high, xhigh, or absent for off; got "max"'],
      ['tools that are no list', { ...definition, tools: 'search' }, /^definition.tools must be a list of tool names/],
      ['more than 32 tools', { ...definition, tools: Array.from({ length: 33 }, (_, i) => `t${i}`) }, 'definition.tools has 33 names; at most 32 are accepted'],
      ['a tool name over 128 bytes', { ...definition, tools: ['é'.repeat(65)] }, 'Tool name is too large: definition.tools[0] is 130 bytes; at most 128 are accepted'],
      ['tools over 4 KiB in all', { ...definition, tools: Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(128, 'x')) }, /^definition.tools is \d+ bytes as JSON; at most 4096 \(4 KiB\) are accepted$/],
      ['metadata that is no map', { ...definition, metadata: [1] }, 'definition.metadata must be a map (a JSON object), got a list'],
      ['a signing key that is no hm-account-key', { ...definition, signingKeys: ['openai-key'] }, 'Signing key "openai-key" (definition.signingKeys[0]) is not an hm-account-key secret of this account (its hm-account-key secrets: my-hm-key)'],
    ];
    for (const [what, input, message] of refusals) {
      it(`refuses ${what}, with nothing decided`, () => {
        const error = refusal(() => create(input));
        expect(error.status).toBe(400);
        if (typeof message === 'string') expect(error.message).toBe(message);
        else expect(error.message).toMatch(message);
      });
    }

    it('names the lack of providers when the account has none', () => {
      expect(refusal(() => create(definition, { credentials: NO_CREDENTIALS, markdownToBlocks })).message).toMatch(/\(it has no providers\)$/);
    });
  });

  describe('UpdateAgent', () => {
    it('replaces the definition', () => {
      const next = { ...definition, name: 'Renamed', systemPrompt: 'Be brief.' };
      expect(decideUpdateAgent(given(created), { account: OWNER, definition: next }, context)).toEqual([
        { type: 'AgentUpdated', data: { definition: next, systemPromptBlocks: markdownToBlocks('Be brief.') } },
      ]);
    });

    it('is a no-op for the same definition', () => {
      expect(decideUpdateAgent(given(created), { account: OWNER, definition: { ...definition } }, context)).toEqual([]);
    });

    it('validates as CreateAgent does', () => {
      const error = refusal(() => decideUpdateAgent(given(created), { account: OWNER, definition: { ...definition, name: '' } }, context));
      expect([error.status, error.message]).toEqual([400, 'Agent name is required']);
    });

    it('answers a stranger, a missing agent and a deleted one alike: not found, before looking at the definition', () => {
      for (const [agent, account] of [
        [given(created), STRANGER],
        [null, OWNER],
        [given(created, { type: 'AgentDeleted', data: {} }), OWNER],
      ] as const) {
        const error = refusal(() => decideUpdateAgent(agent, { account, definition: 'not even a map' }, context));
        expect([error.status, error.message]).toEqual([404, 'Agent not found']);
      }
    });
  });

  describe('DeleteAgent', () => {
    it('deletes the owner’s agent', () => {
      expect(decideDeleteAgent(given(created), { account: OWNER })).toEqual([{ type: 'AgentDeleted', data: {} }]);
    });

    it('answers a stranger, a missing agent and a deleted one alike: not found', () => {
      for (const [agent, account] of [
        [given(created), STRANGER],
        [null, OWNER],
        [given(created, { type: 'AgentDeleted', data: {} }), OWNER],
      ] as const) {
        const error = refusal(() => decideDeleteAgent(agent, { account }));
        expect([error.status, error.message]).toEqual([404, 'Agent not found']);
      }
    });
  });
});

describe('a writer’s refusals', () => {
  const WRITER = 'z6MkWriter';
  const shared = [
    created,
    { type: 'AgentCollaboratorInvited', data: { accountId: WRITER, role: 'writer' } },
    { type: 'AgentInviteAccepted', data: { accountId: WRITER } },
  ];

  it('say what was wrong without listing the owner’s providers or keys', () => {
    const error = refusal(() => decideUpdateAgent(given(...shared), { account: WRITER, definition: { ...definition, modelProvider: 'other' } }, context));
    expect(error.message).toBe('Model provider "other" (definition.modelProvider) does not exist for this account; create it first with SetModelProvider (ask the agent\'s owner which providers it has)');
    expect(error.message).not.toContain('main');
    const owner = refusal(() => decideUpdateAgent(given(...shared), { account: OWNER, definition: { ...definition, modelProvider: 'other' } }, context));
    expect(owner.message).toContain('its providers: main');
  });
});
