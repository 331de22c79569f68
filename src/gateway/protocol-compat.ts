/**
 * Answers in the shape of the protocol the client speaks (protocol/version.ts): handlers answer in the
 * current shape, and each older shape is derived here, in one place, rather than in every handler.
 */

/** `response` as a client speaking `clientProtocol` reads it. */
export function downgradeResponse(response: unknown, clientProtocol: number): unknown {
  if (clientProtocol < 2 && isGetAgentResponse(response)) {
    const { sessionCount, ...rest } = response;
    // Protocol 1 listed the sessions themselves. Sessions do not exist yet, so the list is empty
    // whenever the count is 0; once they exist, GetAgent must list them for protocol 1 itself.
    if (sessionCount !== 0) {
      throw new Error(`GetAgentResponse for protocol 1 needs the agent's ${sessionCount} sessions listed, not counted`);
    }
    return { ...rest, sessions: [] };
  }
  return response;
}

function isGetAgentResponse(response: unknown): response is { _: 'GetAgentResponse'; sessionCount: number } & Record<string, unknown> {
  return typeof response === 'object' && response !== null && (response as { _?: unknown })._ === 'GetAgentResponse';
}
