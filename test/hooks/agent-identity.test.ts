import { type AgentIdentity, block, P } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { HOOKS } from '../../src/hooks/index.js';
import { readPayload } from '../../src/hooks/payload.js';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

const explorer: AgentIdentity = { id: 'a7f3', type: 'Explore' };

describe('agent: which agent made a call', () => {
  it('intercept_tool_call: a handler scoped to subagents runs for their calls only, and sees which one', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('subagents-read-only', (h) =>
        h.on(
          'intercept_tool_call',
          (event) => {
            seen.push(event.agent);
            expect(Object.isFrozen(event.agent)).toBe(true);
            return block(`subagent ${event.agent.id} may not write`);
          },
          { when: { agent: P.not(P.nullish) } },
        ),
      ),
    ]);
    const [main, sub] = await inTurn(runtime, async (t) => [
      await t.interceptToolCall(write()),
      await t.interceptToolCall({ ...write(), agent: explorer }),
    ]);
    expect(main?.blocked).toBe(false);
    expect(sub).toMatchObject({ blocked: true, message: 'subagent a7f3 may not write' });
    expect(seen).toEqual([explorer]);
  });

  it('before_llm_call: the event names the subagent whose request it is, nothing for the main agent', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('recorder', (h) => h.on('before_llm_call', (event) => void seen.push(event.agent))),
    ]);
    const request = { systemPrompt: '', messages: [] };
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request);
      await t.beforeLlmCall({ ...request, agent: { id: 'b2' } });
    });
    expect(seen).toEqual([undefined, { id: 'b2' }]);
  });

  it('over the wire the field is `agent`, and a malformed one is named', () => {
    const call = { tool_name: 'write', tool_args: {} };
    expect(
      readPayload(HOOKS.intercept_tool_call, { ...call, agent: { id: 'a1' } }, 'wire'),
    ).toEqual({ input: { toolName: 'write', toolArgs: {}, agent: { id: 'a1' } } });
    expect(readPayload(HOOKS.intercept_tool_call, { ...call, agent: { id: 1 } }, 'wire')).toEqual({
      problem: 'agent.id must be a string',
    });
  });
});
