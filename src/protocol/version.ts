/**
 * The wire surface is versioned by one integer. A client declares the version it speaks in
 * `envelope.protocol` (absent means 1); the server answers in that version's shape and refuses
 * clients older than MIN_CLIENT_PROTOCOL with 426 `protocol_too_old`.
 *
 * 2: GetAgentResponse.sessions replaced by sessionCount.
 * 3: compound (activity) trigger sources.
 */
export const AGENTS_PROTOCOL_VERSION = 3;
export const MIN_CLIENT_PROTOCOL = 1;
export const PROTOCOL_HEADER = 'X-Agents-Protocol';
