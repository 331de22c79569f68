/** The markdown system prompt a session continues with (spec: GetSession.systemPromptMarkdown). */
import { blocksToMarkdown } from '@seed-hypermedia/client/blocks-to-markdown';
import type { AgentDefinition } from '../../protocol/agents.js';
import type { AgentRow } from '../../projections/agents.projection.js';

/**
 * A markdown prompt as written; a block prompt in the Seed apps' markdown dialect, without the empty
 * frontmatter and the block-id comments the dialect adds for round trips, which mean nothing to a model.
 */
export function systemPromptMarkdown(agent: Pick<AgentRow, 'definition'>): string {
  const { systemPrompt } = JSON.parse(agent.definition) as AgentDefinition;
  if (typeof systemPrompt === 'string') return systemPrompt;
  const markdown = blocksToMarkdown({ content: systemPrompt, metadata: {} } as unknown as Parameters<typeof blocksToMarkdown>[0]);
  return markdown
    .replace(/^---\n---\n/, '')
    .replace(/ ?<!-- id:[^>]*-->/g, '')
    .trim();
}
