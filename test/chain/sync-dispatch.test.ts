import { block, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, runtimeOf, write } from '../support/helpers.js';

const isThenable = (value: unknown) => typeof (value as { then?: unknown })?.then === 'function';

describe('synchronous until a handler returns a thenable', () => {
  it('returns the outcome itself, not a promise, when every handler is sync', async () => {
    const { runtime } = await runtimeOf([
      ext('a', (h) => h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, x: 1 }))),
      ext('b', (h) => h.on('intercept_tool_call', () => undefined)),
    ]);
    await runtime.runTurn({ sessionId: 's' }, (turn) => {
      const outcome = turn.interceptToolCall(write());
      expect(isThenable(outcome)).toBe(false);
      expect(outcome).toMatchObject({ changed: true, value: { path: 'src/a.ts', x: 1 } });
    });
  });

  it('returns at once with no handler at all', async () => {
    const { runtime } = await runtimeOf([]);
    await runtime.runTurn({ sessionId: 's' }, (turn) => {
      const args = { path: 'a' };
      const outcome = turn.interceptToolCall({ toolName: 'write', toolArgs: args });
      expect(isThenable(outcome)).toBe(false);
      expect(outcome).toEqual({
        blocked: false,
        changed: false,
        value: args,
        metadata: {},
        trace: [],
      });
      expect(isThenable(turn.transformUserInput('m'))).toBe(false);
      expect(isThenable(turn.beforeLlmCall({ systemPrompt: '', messages: [] }))).toBe(false);
    });
  });

  it('becomes a promise from the first async handler, and keeps every later rule', async () => {
    const order: string[] = [];
    const { runtime } = await runtimeOf([
      ext('a-sync', (h) =>
        h.on('intercept_tool_call', () => void order.push('a-sync'), { priority: 1 }),
      ),
      ext('b-async', (h) =>
        h.on(
          'intercept_tool_call',
          async (e) => {
            order.push('b-async');
            return rewrite({ ...e.toolArgs, checked: true });
          },
          { priority: 2 },
        ),
      ),
      ext('c-sync', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            order.push('c-sync');
            return e.toolArgs.checked ? block('checked and refused') : undefined;
          },
          { priority: 3 },
        ),
      ),
      ext('d-never', (h) =>
        h.on('intercept_tool_call', () => void order.push('d-never'), { priority: 4 }),
      ),
    ]);
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const pending = turn.interceptToolCall(write());
      expect(isThenable(pending)).toBe(true);
      const outcome = await pending;
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'c-sync', changed: true });
    });
    expect(order).toEqual(['a-sync', 'b-async', 'c-sync']);
  });

  it('accepts any thenable, not only native promises', async () => {
    const { runtime } = await runtimeOf([
      ext('foreign', (h) =>
        h.on(
          'transform_user_input',
          () =>
            ({
              // biome-ignore lint/suspicious/noThenProperty: a foreign thenable on purpose
              then: (resolve: (value: unknown) => void) => resolve(rewrite('from thenable')),
            }) as never,
        ),
      ),
    ]);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('m'));
    expect(outcome.value).toBe('from thenable');
  });
});
