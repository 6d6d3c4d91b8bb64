import { block, P, rewrite } from 'hermes-extensions';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

describe('when: handlers that run only for matching events (ts-pattern)', () => {
  it('runs the handler only for calls the pattern matches, with its event type narrowed', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('src-guard', (h) =>
        h.on(
          'intercept_tool_call',
          (event) => {
            // Narrowed by the pattern: a template literal type, not `unknown`.
            expectTypeOf(event.toolArgs.path).toEqualTypeOf<`src/${string}`>();
            expectTypeOf(event.toolName).toEqualTypeOf<'write' | 'edit'>();
            seen.push(`${event.toolName} ${event.toolArgs.path}`);
            return block(`no edits under src/ (${event.toolArgs.path})`);
          },
          {
            when: {
              toolName: P.union('write', 'edit'),
              toolArgs: { path: P.string.startsWith('src/') },
            },
          },
        ),
      ),
    ]);
    const cases = [
      write('src/a.ts'),
      write('docs/a.md'),
      { toolName: 'edit', toolArgs: { path: 'src/b.ts' } },
      { toolName: 'read', toolArgs: { path: 'src/a.ts' } },
      { toolName: 'write', toolArgs: { path: 42 } },
      { toolName: 'write', toolArgs: {} },
    ];
    const outcomes = await inTurn(runtime, async (t) => {
      const all = [];
      for (const call of cases) all.push(await t.interceptToolCall(call));
      return all;
    });
    expect(outcomes.map((o) => o.blocked)).toEqual([true, false, true, false, false, false]);
    expect(seen).toEqual(['write src/a.ts', 'edit src/b.ts']);
    // A handler that did not match is not in the trace: it did not take part.
    expect(outcomes[1]?.trace).toEqual([]);
  });

  it('matches the event as earlier handlers left it', async () => {
    const { runtime } = await runtimeOf([
      ext('mover', (h) =>
        h.on('intercept_tool_call', () => rewrite({ path: 'src/moved.ts' }), { priority: 1 }),
      ),
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => block('src is frozen'), {
          priority: 2,
          when: { toolArgs: { path: P.string.startsWith('src/') } },
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write('docs/a.md')));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard' });
  });

  it('works on every hook, together with tools, and with P.when predicates', async () => {
    const { runtime } = await runtimeOf([
      ext('shouting', (h) =>
        h.on('transform_user_input', (e) => rewrite(e.userMessage.toLowerCase()), {
          when: { userMessage: P.when((m) => typeof m === 'string' && m === m.toUpperCase()) },
        }),
      ),
      ext('big-writes', (h) =>
        h.on('intercept_tool_call', () => block('too big'), {
          tools: ['write'],
          when: { toolArgs: { content: P.string.minLength(10) } },
        }),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      expect((await t.transformUserInput('HELLO')).value).toBe('hello');
      expect((await t.transformUserInput('Hello')).value).toBe('Hello');
      const big = { path: 'a', content: '0123456789' };
      expect((await t.interceptToolCall({ toolName: 'write', toolArgs: big })).blocked).toBe(true);
      expect((await t.interceptToolCall({ toolName: 'edit', toolArgs: big })).blocked).toBe(false);
      expect(
        (await t.interceptToolCall({ toolName: 'write', toolArgs: { content: 'short' } })).blocked,
      ).toBe(false);
    });
  });

  it('treats a pattern predicate that throws as the handler failing (closed for tool calls)', async () => {
    const { runtime } = await runtimeOf([
      ext('fragile', (h) =>
        h.on('intercept_tool_call', () => undefined, {
          when: {
            toolArgs: P.when(() => {
              throw new Error('pattern broke');
            }),
          },
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'fragile' });
    expect(outcome.blocked && outcome.message).toMatch(/`when` pattern failed: .*pattern broke/);
  });

  it('refuses a function as `when` at registration, pointing to P.when', async () => {
    const { runtime } = await runtimeOf([
      ext('confused', (h) =>
        h.on('intercept_tool_call', () => undefined, { when: (() => true) as never }),
      ),
    ]);
    const info = runtime.extensions.find((e) => e.name === 'confused');
    expect(info).toMatchObject({ status: 'error', code: 'INVALID_REGISTRATION' });
    expect(info?.reason).toMatch(/`when` must be a ts-pattern pattern, not a function.*P\.when/);
  });
});
