import { block, injectSystem, restrictTools } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

const request = (tools?: string[]) => ({
  systemPrompt: 'You are a coding agent.',
  messages: [{ role: 'user' as const, content: 'hi' }],
  ...(tools === undefined ? {} : { tools }),
});

describe('restrictTools: the tools of one model request', () => {
  it('narrows the offered tools, later handlers see the narrowed list, and each restriction is recorded', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('no-shell', (h) =>
        h.on(
          'before_llm_call',
          () => restrictTools((name) => name !== 'terminal', 'no shell today'),
          {
            priority: 1,
          },
        ),
      ),
      ext('read-only', (h) =>
        h.on(
          'before_llm_call',
          (e) => {
            seen.push(e.tools);
            return restrictTools(['read', 'grep', 'write_plan', 'made_up']);
          },
          { priority: 2 },
        ),
      ),
      ext('last', (h) =>
        h.on(
          'before_llm_call',
          (e) => {
            seen.push(e.tools);
          },
          { priority: 3 },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.beforeLlmCall(request(['read', 'grep', 'write', 'terminal', 'write_plan'])),
    );
    expect(seen).toEqual([
      ['read', 'grep', 'write', 'write_plan'],
      ['read', 'grep', 'write_plan'],
    ]);
    expect(outcome).toMatchObject({ blocked: false, changed: true });
    // A restriction only narrows: `made_up` was never offered and is not added.
    expect(outcome.value.tools).toEqual(['read', 'grep', 'write_plan']);
    expect(outcome.value.toolRestrictions).toEqual([
      { extension: 'no-shell', reason: 'no shell today', hidden: ['terminal'] },
      { extension: 'read-only', hidden: ['write'] },
    ]);
    expect(outcome.trace.map((e) => e.action)).toEqual([
      'restrict_tools',
      'restrict_tools',
      'pass',
    ]);
  });

  it('allows an empty list, and is ephemeral: the next request starts from what the host offers', async () => {
    let calls = 0;
    const { runtime } = await runtimeOf([
      ext('once', (h) =>
        h.on('before_llm_call', () => (calls++ === 0 ? restrictTools([]) : undefined)),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      const first = await t.beforeLlmCall(request(['read', 'write']));
      expect(first.value.tools).toEqual([]);
      const second = await t.beforeLlmCall(request(['read', 'write']));
      expect(second.value.tools).toEqual(['read', 'write']);
      expect(second.value.toolRestrictions).toBeUndefined();
    });
  });

  it('uses the names as the tools when the host did not say which it offers; a predicate then is a handler error', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('names', (h) => h.on('before_llm_call', () => restrictTools(['read']), { priority: 1 })),
      ext('predicate', (h) =>
        h.on('before_llm_call', () => restrictTools(() => true), { priority: 2 }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request()));
    expect(outcome.value.tools).toEqual(['read']);
    const { runtime: alone, logger: aloneLog } = await runtimeOf([
      ext('predicate', (h) => h.on('before_llm_call', () => restrictTools(() => true))),
    ]);
    const failed = await inTurn(alone, (t) => t.beforeLlmCall(request()));
    // before_llm_call fails open: the request goes on, unrestricted, and the reason is logged.
    expect(failed).toMatchObject({ blocked: false, changed: false });
    expect(failed.value.tools).toBeUndefined();
    expect(aloneLog.lines.map((l) => l.message).join('\n')).toMatch(
      /predicate.*restrict_tools that cannot be applied.*needs the tools the request offers/,
    );
    expect(logger.lines).toEqual([]);
  });

  it('refuses a predicate that throws and names that are not strings, as handler errors', async () => {
    const { runtime } = await runtimeOf([
      ext('thrower', (h) =>
        h.on('before_llm_call', () =>
          restrictTools(() => {
            throw new Error('boom');
          }),
        ),
      ),
      ext('numbers', (h) => h.on('before_llm_call', () => restrictTools([1 as never]))),
    ]);
    const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request(['read'])));
    expect(outcome.value.tools).toEqual(['read']);
    expect(outcome.trace.map((e) => [e.extension, e.action])).toEqual([
      ['numbers', 'error'],
      ['thrower', 'error'],
    ]);
    expect(outcome.trace.map((e) => e.error).join('\n')).toMatch(/tool names[\s\S]*boom/);
  });

  it('is refused in the validate phase, as any change is', async () => {
    const { runtime } = await runtimeOf([
      ext('late', (h) =>
        h.on('before_llm_call', () => restrictTools(['read']), { phase: 'validate' }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request(['read', 'write'])));
    expect(outcome.value.tools).toEqual(['read', 'write']);
    expect(outcome.trace[0]).toMatchObject({ action: 'error' });
  });
});

describe('calls to tools the request did not offer', () => {
  const readOnly = ext('read-only', (h) =>
    h.on('before_llm_call', () => restrictTools(['read'], 'no plan yet')),
  );

  it('are blocked before any handler runs, naming who hid the tool and what is offered', async () => {
    const ran: string[] = [];
    const { runtime } = await runtimeOf([
      readOnly,
      ext('lenient', (h) =>
        h.on('intercept_tool_call', (e) => {
          ran.push(e.toolName);
        }),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request(['read', 'write']));
      const hidden = await t.interceptToolCall(write());
      expect(hidden).toMatchObject({
        blocked: true,
        blockedBy: 'read-only',
        changed: false,
        trace: [],
      });
      expect(hidden.blocked && hidden.message).toBe(
        'Tool "write" cannot be called: extension "read-only" took it away for this request (no plan yet). Tools offered: read.',
      );
      const invented = await t.interceptToolCall({ toolName: 'rm_rf', toolArgs: {} });
      expect(invented).toMatchObject({ blocked: true, blockedBy: 'hermes' });
      expect(invented.blocked && invented.message).toMatch(/"rm_rf".*not offered in this request/);
      const offered = await t.interceptToolCall({ toolName: 'read', toolArgs: { path: 'a' } });
      expect(offered.blocked).toBe(false);
    });
    expect(ran).toEqual(['read']);
  });

  it('follow the latest request: a tool offered again may be called again', async () => {
    let hide = true;
    const { runtime } = await runtimeOf([
      ext('sometimes', (h) =>
        h.on('before_llm_call', () => (hide ? restrictTools(['read']) : undefined)),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request(['read', 'write']));
      expect((await t.interceptToolCall(write())).blocked).toBe(true);
      hide = false;
      await t.beforeLlmCall(request(['read', 'write']));
      expect((await t.interceptToolCall(write())).blocked).toBe(false);
    });
  });

  it('are blocked when the host named its tools, even with no handler at all', async () => {
    const { runtime } = await runtimeOf([]);
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request(['read']));
      expect(await t.interceptToolCall(write())).toMatchObject({
        blocked: true,
        blockedBy: 'hermes',
      });
    });
  });

  it('are blocked after the same tool was answered unchanged, with no handler, before the request', async () => {
    // A reader with no handler is answered at once the second time (turn.ts): never past a
    // request that no longer offers it, nor for a subagent whose request does not.
    const { runtime } = await runtimeOf([]);
    const read = { toolName: 'read', toolArgs: { path: 'a' } };
    await inTurn(runtime, async (t) => {
      expect((await t.interceptToolCall(read)).blocked).toBe(false);
      expect((await t.interceptToolCall(read)).blocked).toBe(false);
      await t.beforeLlmCall({ ...request(['grep']), agent: { id: 'sub-1', type: 'explore' } });
      const sub = await t.interceptToolCall({ ...read, agent: { id: 'sub-1', type: 'explore' } });
      expect(sub).toMatchObject({ blocked: true, blockedBy: 'hermes' });
      expect((await t.interceptToolCall(read)).blocked).toBe(false);
      await t.beforeLlmCall(request(['grep']));
      expect(await t.interceptToolCall(read)).toMatchObject({ blocked: true, blockedBy: 'hermes' });
      const grep = { toolName: 'grep', toolArgs: { pattern: 'x' } };
      expect((await t.interceptToolCall(grep)).blocked).toBe(false);
      expect((await t.interceptToolCall(grep)).blocked).toBe(false);
      const cut = await t.interceptToolCall({ ...grep, unjudgeable: 'its arguments were cut' });
      expect(cut).toMatchObject({ blocked: true, blockedBy: 'hermes' });
    });
  });

  it('are not refused when the host never said which tools it offers, nor after a blocked request', async () => {
    const { runtime } = await runtimeOf([
      ext('stopper', (h) =>
        h.on('before_llm_call', (e) => (e.iteration > 0 ? block('stop') : undefined)),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request());
      expect((await t.interceptToolCall(write())).blocked).toBe(false);
      await t.beforeLlmCall({ ...request(['read', 'write']) });
      await t.beforeLlmCall({ ...request([]), iteration: 1 });
      // The blocked request was never made: the one before it still decides.
      expect((await t.interceptToolCall(write())).blocked).toBe(false);
    });
  });

  it('start over with every turn', async () => {
    const { runtime } = await runtimeOf([readOnly]);
    const sessionId = 'one-session';
    await runtime.runTurn({ sessionId }, (t) => t.beforeLlmCall(request(['read', 'write'])));
    const next = await runtime.runTurn({ sessionId }, (t) => t.interceptToolCall(write()));
    expect(next.blocked).toBe(false);
  });

  it('report the refusal as a hook_decision', async () => {
    const decisions: unknown[] = [];
    const { runtime } = await runtimeOf([
      readOnly,
      ext('watcher', (h) => h.observe('hook_decision', (p) => void decisions.push(p))),
    ]);
    await inTurn(runtime, async (t) => {
      await t.beforeLlmCall(request(['read', 'write']));
      await t.interceptToolCall(write());
    });
    expect(decisions).toContainEqual(
      expect.objectContaining({
        hook: 'intercept_tool_call',
        blocked: true,
        blocked_by: 'read-only',
      }),
    );
    expect(decisions).toContainEqual(
      expect.objectContaining({
        hook: 'before_llm_call',
        tools: ['read'],
        tool_restrictions: [{ extension: 'read-only', reason: 'no plan yet', hidden: ['write'] }],
      }),
    );
  });
});

// The reason travels with the request even when an injection follows it.
it('keeps the restriction through a later injection', async () => {
  const { runtime } = await runtimeOf([
    ext('r', (h) => h.on('before_llm_call', () => restrictTools(['read']), { priority: 1 })),
    ext('i', (h) => h.on('before_llm_call', () => injectSystem('be brief'), { priority: 2 })),
  ]);
  const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request(['read', 'write'])));
  expect(outcome.value).toMatchObject({
    tools: ['read'],
    systemPrompt: 'You are a coding agent.\n\nbe brief',
  });
});
