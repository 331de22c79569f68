/**
 * The two tool-result ceilings (spec/tools-and-verbs.md, "Size limits"): what a tool may keep
 * durably, and what one result may add to the provider context. Both cut between whole UTF-8
 * characters and count their appended marker inside the cap, so a bounded text never exceeds it.
 */

export const MAX_TOOL_RESULT_BYTES = 256 * 1024;
export const MAX_MODEL_TOOL_RESULT_BYTES = 8 * 1024;

const DURABLE_TRUNCATION_MARKER = '\n[truncated]';

/** Bounds tool output (rendered markdown and the like) before it enters the session Log. */
export function boundDurableToolResult(text: string): string {
  if (utf8Bytes(text) <= MAX_TOOL_RESULT_BYTES) return text;
  return utf8Prefix(text, MAX_TOOL_RESULT_BYTES - utf8Bytes(DURABLE_TRUNCATION_MARKER)) + DURABLE_TRUNCATION_MARKER;
}

/**
 * Bounds one tool result's model-facing text. The live tool path and transcript replay both call
 * this, so a resumed session reads exactly what the live one read.
 */
export function boundModelToolResultText(text: string): string {
  const totalBytes = utf8Bytes(text);
  if (totalBytes <= MAX_MODEL_TOOL_RESULT_BYTES) return text;
  // The notice names the kept size, unknown until the cut: reserving room for the widest number it
  // can print (the total) keeps text and notice together under the cap.
  const head = utf8Prefix(text, MAX_MODEL_TOOL_RESULT_BYTES - utf8Bytes(truncationNotice(totalBytes, totalBytes)));
  return head + truncationNotice(totalBytes, utf8Bytes(head));
}

/**
 * Upstream's wording (agents/src/api-service.ts, boundModelToolResultText): it steers the model to
 * bounded strategies, because retrying the same call would truncate the same way.
 */
function truncationNotice(totalBytes: number, shownBytes: number): string {
  return (
    `\n\n[RESULT TRUNCATED: ${totalBytes} bytes total, only the first ${shownBytes} bytes are shown. ` +
    'Retrying this exact call will truncate the same way. You must work with the data in bounded pieces instead: ' +
    'request a narrower slice if the tool supports it (a specific block, view, page, or query), or get the full data ' +
    'into a memory file (e.g. write ~/memory/<path> with {fromUrl} or {fromAttachment}) and process it with the ' +
    'execute tool, printing only the small portion you need.]'
  );
}

const encoder = new TextEncoder();

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest prefix of `text` whose UTF-8 fits in `maxBytes`. encodeInto stops only between whole
 * characters (a surrogate pair is one), so the cut can never leave half a code point.
 */
function utf8Prefix(text: string, maxBytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}
