import { block, injectSystem, injectUser, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it, vi } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

describe('rewrite propagation', () => {
  it('transform_user_input: each handler sees the message as rewritten before it', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('first', (h) => h.on('transform_user_input', (e) => rewrite(`${e.userMessage}!`))),
      ext('second', (h) =>
        h.on('transform_user_input', (e) => {
          seen.push(e.userMessage);
          return rewrite(e.userMessage.toUpperCase());
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('fix it'));
    expect(seen).toEqual(['fix it!']);
    expect(outcome).toMatchObject({ changed: true, blocked: false, value: 'FIX IT!' });
  });

  it('intercept_tool_call: later handlers see the rewritten args, the outcome carries them', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) =>
        h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'plans/a.md' }), {
          priority: 1,
        }),
      ),
      ext('b', (h) =>
        h.on('intercept_tool_call', (e) => {
          seen.push(e.toolArgs);
          return rewrite({ ...e.toolArgs, mode: 'safe' });
        }),
      ),
    ]);
    const args = { path: 'src/a.ts', content: 'x' };
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: args }),
    );
    expect(seen).toEqual([{ path: 'plans/a.md', content: 'x' }]);
    expect(outcome.value).toEqual({ path: 'plans/a.md', content: 'x', mode: 'safe' });
    expect(args).toEqual({ path: 'src/a.ts', content: 'x' });
  });

  it('before_llm_call: injections and rewrites accumulate for later handlers', async () => {
    const seen: Array<{ systemPrompt: string; messages: unknown[] }> = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) => {
        h.on('before_llm_call', () => injectSystem('Rule A.'), { priority: 1 });
        h.on('before_llm_call', () => injectUser('Reminder.'), { priority: 2 });
      }),
      ext('b', (h) =>
        h.on('before_llm_call', (e) => {
          seen.push({ systemPrompt: e.systemPrompt, messages: [...e.messages] });
          return rewrite({ systemPrompt: `${e.systemPrompt} [checked]` });
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.beforeLlmCall({ systemPrompt: 'Base.', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(seen[0]).toEqual({
      systemPrompt: 'Base.\n\nRule A.',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'user', content: 'Reminder.' },
      ],
    });
    expect(outcome.value.systemPrompt).toBe('Base.\n\nRule A. [checked]');
    expect(outcome.value.messages).toHaveLength(2);
    expect(outcome.changed).toBe(true);
  });

  it('a pass changes nothing: undefined, null, pass() and { action: "pass" } all pass', async () => {
    const { runtime } = await runtimeOf([
      ext('p', (h) => {
        h.on('intercept_tool_call', () => undefined);
        h.on('intercept_tool_call', () => null);
        h.on('intercept_tool_call', () => pass());
        h.on('intercept_tool_call', () => ({ action: 'pass' as const }));
      }),
    ]);
    const args = { path: 'a' };
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'read', toolArgs: args }),
    );
    expect(outcome.changed).toBe(false);
    expect(outcome.value).toBe(args);
    expect(outcome.trace.map((e) => e.action)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });

  it('accepts plain result objects as well as helpers', async () => {
    const { runtime } = await runtimeOf([
      ext('plain', (h) =>
        h.on('transform_user_input', () => ({ action: 'rewrite', value: 'new' })),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('old'));
    expect(outcome.value).toBe('new');
  });
});

describe('short-circuit on block', () => {
  it('the first block ends the chain: later handlers are not called', async () => {
    const later = vi.fn();
    const { runtime } = await runtimeOf([
      ext('early', (h) =>
        h.on('intercept_tool_call', () => block('No plan yet.'), { priority: 1 }),
      ),
      ext('late', (h) => h.on('intercept_tool_call', later, { priority: 2 })),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(later).not.toHaveBeenCalled();
    expect(outcome).toMatchObject({ blocked: true, message: 'No plan yet.', blockedBy: 'early' });
    expect(outcome.trace).toHaveLength(1);
  });

  it('changes made before the block stay visible in the trace and value', async () => {
    const { runtime } = await runtimeOf([
      ext('rewriter', (h) =>
        h.on('transform_user_input', () => rewrite('rewritten'), { priority: 1 }),
      ),
      ext('blocker', (h) => h.on('transform_user_input', () => block('stop'), { priority: 2 })),
      ext('never', (h) => h.on('transform_user_input', () => rewrite('never'), { priority: 3 })),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('original'));
    expect(outcome.trace.map((e) => [e.extension, e.action])).toEqual([
      ['rewriter', 'rewrite'],
      ['blocker', 'block'],
    ]);
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'blocker', changed: true });
    expect(outcome.value).toBe('rewritten');
  });

  it('before_llm_call can block', async () => {
    const { runtime } = await runtimeOf([
      ext('budget', (h) => h.on('before_llm_call', () => block('Budget exhausted.'))),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.beforeLlmCall({ systemPrompt: 's', messages: [] }),
    );
    expect(outcome).toMatchObject({
      blocked: true,
      message: 'Budget exhausted.',
      blockedBy: 'budget',
    });
  });
});

describe('metadata', () => {
  it('is merged in chain order and visible to later handlers as event.metadata', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) =>
        h.on('intercept_tool_call', () => pass({ risk: 'low', by: 'a' }), { priority: 1 }),
      ),
      ext('b', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            seen.push({ ...e.metadata });
            return rewrite({ ...e.toolArgs }, { risk: 'high' });
          },
          { priority: 2 },
        ),
      ),
      ext('c', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            seen.push({ ...e.metadata });
          },
          { priority: 3 },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(seen).toEqual([
      { risk: 'low', by: 'a' },
      { risk: 'high', by: 'a' },
    ]);
    expect(outcome.metadata).toEqual({ risk: 'high', by: 'a' });
  });

  it('is returned with a block, merged up to the blocking handler', async () => {
    const { runtime } = await runtimeOf([
      ext('a', (h) => h.on('transform_user_input', () => pass({ seen: true }), { priority: 1 })),
      ext('b', (h) =>
        h.on('transform_user_input', () => block('no', { rule: 'r1' }), { priority: 2 }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('x'));
    expect(outcome.metadata).toEqual({ seen: true, rule: 'r1' });
  });

  it('starts empty for every chain run', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) =>
        h.on('intercept_tool_call', (e) => {
          seen.push({ ...e.metadata });
          return pass({ n: 1 });
        }),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      await t.interceptToolCall(write());
      await t.interceptToolCall(write());
    });
    expect(seen).toEqual([{}, {}]);
  });
});
