import { createRuntime, defineExtension, type ExtensionDefinition } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';

const quiet = { logger: memoryLogger() };

interface Tally {
  prompts: number;
  tools: string[];
}

/** Counts, in its turn slot, the prompts and the tool calls it sees; `made` counts `init` runs. */
function tallying(name: string, made: { count: number }): ExtensionDefinition {
  return defineExtension({
    name,
    setup(hermes) {
      const tally = hermes.turnState<Tally>(() => {
        made.count++;
        return { prompts: 0, tools: [] };
      });
      hermes.on('transform_user_input', (event) => {
        expectTypeOf(tally(event)).toEqualTypeOf<Tally>();
        tally(event).prompts++;
      });
      hermes.on('intercept_tool_call', (event) => {
        tally(event).tools.push(event.toolName);
      });
    },
  });
}

describe('hermes.turnState', () => {
  it('gives a typed slot under the extension name, made on first use and shared by every hook of the turn', async () => {
    const made = { count: 0 };
    const runtime = await createRuntime({ extensions: [tallying('tally', made)], ...quiet });
    const state = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect(turn.state).toEqual({});
      await turn.transformUserInput('hello');
      await turn.interceptToolCall({ toolName: 'read', toolArgs: {} });
      await turn.interceptToolCall({ toolName: 'write', toolArgs: {} });
      return { ...turn.state };
    });
    expect(state).toEqual({ tally: { prompts: 1, tools: ['read', 'write'] } });
    expect(made.count).toBe(1);
  });

  it('starts over every turn, and a turn that never asks has no slot', async () => {
    const made = { count: 0 };
    const runtime = await createRuntime({ extensions: [tallying('tally', made)], ...quiet });
    const seen: unknown[] = [];
    for (const tool of ['read', 'write']) {
      await runtime.runTurn({ sessionId: 's' }, async (turn) => {
        await turn.interceptToolCall({ toolName: tool, toolArgs: {} });
        seen.push(structuredClone(turn.state.tally));
      });
    }
    expect(seen).toEqual([
      { prompts: 0, tools: ['read'] },
      { prompts: 0, tools: ['write'] },
    ]);
    expect(made.count).toBe(2);
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.beforeLlmCall({ systemPrompt: '', messages: [] });
      expect(turn.state).toEqual({});
    });
    expect(made.count).toBe(2);
  });

  it('keeps each extension in its own slot, even one named like what every object inherits', async () => {
    const counts = { a: { count: 0 }, b: { count: 0 }, constructor: { count: 0 } };
    const runtime = await createRuntime({
      extensions: [
        tallying('a', counts.a),
        tallying('b', counts.b),
        tallying('constructor', counts.constructor),
      ],
      ...quiet,
    });
    const state = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.transformUserInput('hello');
      await turn.interceptToolCall({ toolName: 'grep', toolArgs: {} });
      return structuredClone(turn.state);
    });
    const tally = { prompts: 1, tools: ['grep'] };
    expect(state).toEqual({ a: tally, b: tally, constructor: tally });
    expect([counts.a.count, counts.b.count, counts.constructor.count]).toEqual([1, 1, 1]);
  });

  it('refuses an init that is not a function, as a registration error of the extension', async () => {
    const runtime = await createRuntime({
      extensions: [
        defineExtension({
          name: 'wrong',
          setup(hermes) {
            hermes.turnState({ prompts: 0 } as never);
          },
        }),
      ],
      config: { extensions: { on_load_error: 'warn' } },
      ...quiet,
    });
    expect(runtime.extensions).toMatchObject([
      {
        name: 'wrong',
        status: 'error',
        code: 'INVALID_REGISTRATION',
        reason: expect.stringMatching(/turnState\(init\): init must be a function/),
      },
    ]);
  });
});
