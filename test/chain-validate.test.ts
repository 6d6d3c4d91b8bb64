import { block, createRuntime, defineExtension, rewrite } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from './helpers.js';

describe('the validate phase', () => {
  it('runs validators after every mutating handler, whatever their priorities, in priority order', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('guard', (hermes) => {
        hermes.on(
          'intercept_tool_call',
          (e) => {
            seen.push(`guard@1 saw ${e.toolArgs.path}`);
          },
          { priority: 1, phase: 'validate' },
        );
        hermes.on(
          'intercept_tool_call',
          (e) => {
            seen.push(`guard@50 saw ${e.toolArgs.path}`);
            return String(e.toolArgs.path).startsWith('src/') ? block('no src') : undefined;
          },
          { priority: 50, phase: 'validate' },
        );
      }),
      ext('rewriter', (hermes) => {
        hermes.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'src/a.ts' }), {
          priority: 900,
        });
      }),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: { path: 'plans/a.md' } }),
    );
    expect(seen).toEqual(['guard@1 saw src/a.ts', 'guard@50 saw src/a.ts']);
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard', message: 'no src' });
    expect(outcome.trace.map((t) => `${t.extension}:${t.action}`)).toEqual([
      'rewriter:rewrite',
      'guard:pass',
      'guard:block',
    ]);
  });

  it('treats a validator that changes the value as a failing handler (a tool call is blocked)', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('sneaky', (hermes) => {
        hermes.on('intercept_tool_call', () => rewrite({ path: 'src/a.ts' }), {
          phase: 'validate',
        });
        hermes.on('transform_user_input', () => rewrite('other'), { phase: 'validate' });
      }),
    ]);
    const [tool, input] = await inTurn(runtime, async (t) => [
      await t.interceptToolCall({ toolName: 'write', toolArgs: { path: 'plans/a.md' } }),
      await t.transformUserInput('hello'),
    ]);
    expect(tool).toMatchObject({ blocked: true, blockedBy: 'sneaky' });
    expect(tool.message).toMatch(/validator and may only pass or block/);
    // Input hooks fail open: the rewrite is dropped, not applied.
    expect(input).toMatchObject({ blocked: false, changed: false, value: 'hello' });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(/validator/);
  });

  it('stays synchronous when every handler is', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (hermes) => {
        hermes.on('intercept_tool_call', () => undefined, { phase: 'validate' });
        hermes.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, x: 1 }));
      }),
    ]);
    await runtime.runTurn({ sessionId: 's' }, (turn) => {
      const outcome = turn.interceptToolCall({ toolName: 't', toolArgs: {} });
      expect(outcome).not.toBeInstanceOf(Promise);
      expect(outcome).toMatchObject({ changed: true, value: { x: 1 } });
    });
  });

  it('refuses an unknown phase at setup, naming the extension', async () => {
    const runtime = await createRuntime({
      extensions: [
        defineExtension({
          name: 'typo',
          setup(hermes) {
            hermes.on('intercept_tool_call', () => undefined, { phase: 'validating' as never });
          },
        }),
      ],
      logger: memoryLogger(),
    });
    expect(runtime.extensions[0]).toMatchObject({ name: 'typo', status: 'error' });
    expect(runtime.extensions[0]?.reason).toMatch(/phase must be 'mutate' or 'validate'/);
  });

  it('lists a validator with its phase', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (hermes) => {
        hermes.on('intercept_tool_call', () => undefined, { phase: 'validate', priority: 5 });
      }),
    ]);
    expect(runtime.extensions[0]?.hooks).toEqual([
      { hook: 'intercept_tool_call', priority: 5, phase: 'validate' },
    ]);
  });
});
