import { describe, expect, it } from 'vitest';
import { downgradeResponse } from './protocol-compat.js';

const agent = { id: 'a1', name: 'Helper' };

describe('downgradeResponse', () => {
  it('answers protocol 1 GetAgent with the sessions it listed, in place of the count', () => {
    expect(downgradeResponse({ _: 'GetAgentResponse', agent, sessionCount: 0, sessions: [] }, 1)).toEqual({ _: 'GetAgentResponse', agent, sessions: [] });
    const sessions = [{ id: 's1' }, { id: 's2' }];
    expect(downgradeResponse({ _: 'GetAgentResponse', agent, sessionCount: 2, sessions }, 1)).toEqual({ _: 'GetAgentResponse', agent, sessions });
  });

  it('never shows a current client the list made for protocol 1', () => {
    expect(downgradeResponse({ _: 'GetAgentResponse', agent, sessionCount: 1, sessions: [{ id: 's1' }] }, 3)).toEqual({ _: 'GetAgentResponse', agent, sessionCount: 1 });
  });

  it('leaves protocol 2 and later, and every other response, as the handler answered', () => {
    const current = { _: 'GetAgentResponse', agent, sessionCount: 0 };
    expect(downgradeResponse(current, 2)).toBe(current);
    expect(downgradeResponse(current, 3)).toBe(current);
    const other = { _: 'ListAgentsResponse', agents: [agent] };
    expect(downgradeResponse(other, 1)).toBe(other);
  });

  it('refuses to invent an empty list for an agent that has sessions', () => {
    expect(() => downgradeResponse({ _: 'GetAgentResponse', agent, sessionCount: 2 }, 1)).toThrow(/2 sessions listed, not counted/);
  });
});
