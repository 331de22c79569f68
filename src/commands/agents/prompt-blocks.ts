/** Markdown system prompts as Seed blocks, in the dialect the Seed apps themselves read and write. */
import { markdownBlockNodesToHMBlockNodes, parseMarkdown } from '@seed-hypermedia/client/markdown-to-blocks';
import type { AgentPromptBlock } from '../../protocol/agents.js';

export function markdownToBlocks(markdown: string): AgentPromptBlock[] {
  const nodes = markdownBlockNodesToHMBlockNodes(parseMarkdown(markdown).tree);
  // Through JSON: the blocks go into the log, which has no place for the `undefined` fields the
  // converter leaves on optional attributes.
  return JSON.parse(JSON.stringify(nodes)) as AgentPromptBlock[];
}
