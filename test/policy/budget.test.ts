import { block, type ChainOutcome, P, runConversation } from 'hermes-extensions';
import { modelCallBudget, toolCallBudget } from 'hermes-extensions/policy';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { blockedOutcome, ext, inTurn, runtimeOf } from '../support/helpers.js';

/** Who blocked each call, undefined for a call let through. */
const blockers = (outcomes: ChainOutcome<unknown>[]) =>
  outcomes.map((o) => (o.blocked ? o.blockedBy : undefined));

/**
 * Budgets (src/policy/budget.ts): at most N calls per turn, counted in the turn's state under a
 * key of the extension's own, as JSON data, so they hold in every host.
 */
const bash = (command = 'ls') => ({ toolName: 'bash', toolArgs: { command } });
const read = { toolName: 'read', toolArgs: { path: 'a.md' } };

describe('toolCallBudget', () => {
  it('lets max calls of the counted tools through, then blocks with a message the model can act on', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, tools: ['bash'] }));
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(read),
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(read),
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(bash()),
    ]);
    expect(outcomes.map((o) => o.blocked)).toEqual([false, false, false, false, true, true]);
    const refused = blockedOutcome(outcomes[4] as ChainOutcome<unknown>);
    expect(refused.blockedBy).toBe('limits');
    expect(refused.message).toMatch(/at most 2 calls of bash per turn/);
    expect(refused.message).toMatch(/Do not call bash again in this turn/);
  });

  it('starts over in every turn, and keeps its count as a number (JSON data) in the state', async () => {
    const counts: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1 }));
      }),
      ext('watcher', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          (event) => {
            counts.push(structuredClone(event.state));
          },
          { phase: 'validate' },
        );
      }),
    ]);
    const session = { sessionId: 'budget-turns' };
    for (let turn = 0; turn < 2; turn++) {
      const first = await runtime.runTurn(session, (t) => t.interceptToolCall(read));
      expect(first.blocked).toBe(false);
    }
    expect(counts).toEqual([
      { 'limits/budget/tool-calls-1': 1 },
      { 'limits/budget/tool-calls-1': 1 },
    ]);
  });

  it('counts the parallel calls of one model response, each once', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, tools: /^ba/ }));
      }),
    ]);
    const outcomes = await inTurn(runtime, (turn) =>
      Promise.all([1, 2, 3].map((n) => turn.interceptToolCall(bash(`echo ${n}`)))),
    );
    expect(outcomes.filter((o) => o.blocked)).toHaveLength(1);
  });

  it('takes a predicate for which tools count, and max 0 refuses every one of them', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          toolCallBudget(hermes, { max: 0, tools: (name) => name.startsWith('web_') }),
        );
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall({ toolName: 'web_fetch', toolArgs: {} }),
      await turn.interceptToolCall(read),
    ]);
    expect(outcomes.map((o) => o.blocked)).toEqual([true, false]);
  });

  it('counts a call when it sees it: a call a later handler blocks still counts', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1, tools: 'bash' }));
      }),
      ext('no-rm', (hermes) => {
        hermes.on('intercept_tool_call', (e) =>
          String(e.toolArgs.command).startsWith('rm') ? block('no rm') : undefined,
        );
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash('rm -rf build')),
      await turn.interceptToolCall(bash('ls')),
    ]);
    expect(blockers(outcomes)).toEqual(['no-rm', 'limits']);
  });

  it('registered as the last validator, counts only the calls the other guards let through', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1, tools: 'bash' }), {
          phase: 'validate',
          priority: 10_000,
        });
      }),
      ext('no-rm', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          (e) => (String(e.toolArgs.command).startsWith('rm') ? block('no rm') : undefined),
          { phase: 'validate' },
        );
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash('rm -rf build')),
      await turn.interceptToolCall(bash('ls')),
      await turn.interceptToolCall(bash('pwd')),
    ]);
    expect(blockers(outcomes)).toEqual(['no-rm', undefined, 'limits']);
  });

  it("whenExceeded: 'ask' asks a person past the budget, with the author's message", async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          toolCallBudget(hermes, {
            max: 1,
            tools: 'bash',
            whenExceeded: 'ask',
            message: ({ max, toolName }) => `${toolName} ran ${max} time(s) already; once more?`,
          }),
        );
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(bash()),
    ]);
    expect(outcomes.map((o) => (o.blocked ? undefined : o.ask?.message))).toEqual([
      undefined,
      'bash ran 1 time(s) already; once more?',
      'bash ran 1 time(s) already; once more?',
    ]);
    expect(outcomes.some((o) => o.blocked)).toBe(false);
  });

  it("counts a subagent's calls toward the turn's budget (they share the turn)", async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, tools: 'bash' }));
      }),
    ]);
    const agent = { id: 'sub-1', type: 'explore' };
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall({ ...bash(), agent }),
      await turn.interceptToolCall({ ...bash(), agent }),
    ]);
    expect(outcomes.map((o) => o.blocked)).toEqual([false, false, true]);
  });

  it('budgets the main agent only with when: { agent: P.nullish } (docs/policy.md)', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1, tools: 'bash' }), {
          when: { agent: P.nullish },
        });
      }),
    ]);
    const agent = { id: 'sub-1' };
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall({ ...bash(), agent }),
      await turn.interceptToolCall({ ...bash(), agent }),
      await turn.interceptToolCall(bash()),
    ]);
    expect(outcomes.map((o) => o.blocked)).toEqual([false, false, false, true]);
  });

  it('keeps budgets apart: two extensions, and two budgets of one extension, count separately', async () => {
    const { runtime } = await runtimeOf([
      ext('one', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1, tools: 'bash' }));
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 1, tools: 'read' }));
        // Its own turnState slot is under its name: no budget may land there.
        const mine = hermes.turnState(() => ({ seen: 0 }));
        hermes.on('intercept_tool_call', (e) => {
          mine(e).seen++;
        });
      }),
      ext('two', (hermes) => {
        hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, tools: 'bash' }));
      }),
    ]);
    const outcomes = await inTurn(runtime, async (turn) => [
      await turn.interceptToolCall(bash()),
      await turn.interceptToolCall(read),
      await turn.interceptToolCall(read),
      await turn.interceptToolCall(bash()),
    ]);
    expect(blockers(outcomes)).toEqual([undefined, undefined, 'one', 'one']);
  });

  it('fails closed when something else put a non-count under its key, and says what to do', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          toolCallBudget(hermes, { name: 'shell', max: 5, tools: 'bash' }),
        );
      }),
      ext('meddler', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          (e) => {
            e.state['limits/budget/shell'] = 'lots';
          },
          { priority: 1 },
        );
      }),
    ]);
    const outcome = blockedOutcome(await inTurn(runtime, (turn) => turn.interceptToolCall(bash())));
    expect(outcome.blockedBy).toBe('limits');
    expect(outcome.message).toMatch(
      /budget "shell" of extension "limits": the turn state's "limits\/budget\/shell" holds "lots", not a count/,
    );
    expect(outcome.message).toMatch(/another handler wrote there/);
  });

  it('refuses options it cannot honour, when the budget is made (setup), naming the option', async () => {
    const hermes = { name: 'limits' };
    expect(() => toolCallBudget(hermes, { max: -1 })).toThrow(
      /toolCallBudget\(\{ max \}\): max must be a whole number of calls, 0 or more, got -1/,
    );
    expect(() => toolCallBudget(hermes, { max: 1.5 })).toThrow(/got 1\.5/);
    // @ts-expect-error: only block or ask
    expect(() => toolCallBudget(hermes, { max: 1, whenExceeded: 'deny' })).toThrow(
      /whenExceeded must be 'block' or 'ask', got "deny"/,
    );
    // @ts-expect-error: names, patterns or a predicate
    expect(() => toolCallBudget(hermes, { max: 1, tools: [3] })).toThrow(/tools/);
    toolCallBudget(hermes, { name: 'shell', max: 1 });
    expect(() => toolCallBudget(hermes, { name: 'shell', max: 2 })).toThrow(
      /extension "limits" already has a budget named "shell"/,
    );
    expect(() => modelCallBudget({ name: '' }, { max: 1 })).toThrow(/extension name/);
  });
});

describe('modelCallBudget', () => {
  it('blocks the model request past max: the turn ends with its message, the model is not asked', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('before_llm_call', modelCallBudget(hermes, { max: 2 }));
      }),
    ]);
    const model = scriptedModel([
      { content: 'looking', toolCalls: [toolCall('read', { path: 'a' })] },
      { content: 'looking more', toolCalls: [toolCall('read', { path: 'b' })] },
      { content: 'done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 'model-budget',
      userMessage: 'go',
      systemPrompt: 'You are terse.',
      model,
      tools: { read: { execute: (args) => `read ${String(args.path)}` } },
    });
    expect(model.requests).toHaveLength(2);
    expect(result.blocked).toBe(true);
    expect(result.finalResponse).toMatch(/at most 2 model requests per turn/);
  });

  it('still blocks when the author’s message function throws (before_llm_call would fail open)', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on(
          'before_llm_call',
          modelCallBudget(hermes, {
            max: 0,
            message: () => {
              throw new Error('no words');
            },
          }),
        );
      }),
    ]);
    const outcome = blockedOutcome(
      await inTurn(runtime, (turn) => turn.beforeLlmCall({ systemPrompt: '', messages: [] })),
    );
    expect(outcome.message).toMatch(
      /at most 0 model requests per turn.*budget "model-calls-1" of extension "limits"'s message function threw: no words/,
    );
  });

  it('fails closed on a tampered count too', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('before_llm_call', modelCallBudget(hermes, { max: 2 }));
        hermes.on(
          'before_llm_call',
          (e) => {
            e.state['limits/budget/model-calls-1'] = { n: 0 };
          },
          { priority: 1 },
        );
      }),
    ]);
    const outcome = blockedOutcome(
      await inTurn(runtime, (turn) => turn.beforeLlmCall({ systemPrompt: '', messages: [] })),
    );
    expect(outcome.message).toMatch(/holds \{"n":0\}, not a count/);
  });
});
