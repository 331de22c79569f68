/**
 * Answers in the shape of the protocol the client speaks (protocol/version.ts): handlers answer in the
 * current shape, and each older shape is derived here, in one place, rather than in every handler.
 */

/** `response` as a client speaking `clientProtocol` reads it. */
export function downgradeResponse(response: unknown, clientProtocol: number): unknown {
  if (clientProtocol < 2 && isGetAgentResponse(response)) {
    const { sessionCount, sessions, ...rest } = response;
    // Protocol 1 listed the sessions themselves; the handler lists them for such a client.
    if (!Array.isArray(sessions) || sessions.length !== sessionCount) {
      throw new Error(`GetAgentResponse for protocol 1 needs the agent's ${sessionCount} sessions listed, not counted`);
    }
    return { ...rest, sessions };
  }
  if (isGetAgentResponse(response) && response.sessions !== undefined) {
    const { sessions: _listed, ...current } = response;
    return current;
  }
  return response;
}

function isGetAgentResponse(response: unknown): response is { _: 'GetAgentResponse'; sessionCount: number; sessions?: unknown } & Record<string, unknown> {
  return typeof response === 'object' && response !== null && (response as { _?: unknown })._ === 'GetAgentResponse';
}
