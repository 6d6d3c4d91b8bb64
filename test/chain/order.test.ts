import { rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

/** Each handler appends its label to the message, so the final value spells the order. */
const tag = (label: string) => (event: { userMessage: string }) =>
  rewrite(`${event.userMessage}${label}`);

describe('chain order', () => {
  it('runs handlers in ascending priority, default 100', async () => {
    const { runtime } = await runtimeOf([
      ext('a', (h) => {
        h.on('transform_user_input', tag('[a:default]'));
        h.on('transform_user_input', tag('[a:500]'), { priority: 500 });
      }),
      ext('b', (h) => {
        h.on('transform_user_input', tag('[b:-5]'), { priority: -5 });
        h.on('transform_user_input', tag('[b:99]'), { priority: 99 });
      }),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput(''));
    expect(outcome.value).toBe('[b:-5][b:99][a:default][a:500]');
    expect(outcome.trace.map((e) => e.extension)).toEqual(['b', 'b', 'a', 'a']);
  });

  it('breaks priority ties by extension name, never by array position', async () => {
    const zeta = ext('zeta', (h) => h.on('transform_user_input', tag('[zeta]')));
    const alpha = ext('alpha', (h) => h.on('transform_user_input', tag('[alpha]')));
    const mid = ext('mid', (h) => h.on('transform_user_input', tag('[mid]')));
    for (const order of [
      [zeta, alpha, mid],
      [mid, zeta, alpha],
      [alpha, mid, zeta],
    ]) {
      const { runtime } = await runtimeOf(order);
      const outcome = await inTurn(runtime, (t) => t.transformUserInput(''));
      expect(outcome.value).toBe('[alpha][mid][zeta]');
    }
  });

  it('keeps registration order inside one extension for equal priorities', async () => {
    const { runtime } = await runtimeOf([
      ext('solo', (h) => {
        h.on('transform_user_input', tag('1'), { priority: 7 });
        h.on('transform_user_input', tag('2'), { priority: 7 });
        h.on('transform_user_input', tag('3'), { priority: 7 });
      }),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('>'));
    expect(outcome.value).toBe('>123');
  });

  it("on a tie, all of an earlier extension's handlers run before a later extension's", async () => {
    const { runtime } = await runtimeOf([
      ext('beta', (h) => {
        h.on('transform_user_input', tag('[beta1]'));
        h.on('transform_user_input', tag('[beta2]'));
      }),
      ext('alpha', (h) => {
        h.on('transform_user_input', tag('[alpha1]'));
        h.on('transform_user_input', tag('[alpha2]'));
      }),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput(''));
    expect(outcome.value).toBe('[alpha1][alpha2][beta1][beta2]');
  });

  it('orders each hook on its own', async () => {
    const calls: string[] = [];
    const { runtime } = await runtimeOf([
      ext('b', (h) => {
        h.on('intercept_tool_call', () => void calls.push('b-tool'), { priority: 1 });
        h.on('transform_user_input', () => void calls.push('b-input'), { priority: 200 });
      }),
      ext('a', (h) => {
        h.on('intercept_tool_call', () => void calls.push('a-tool'), { priority: 2 });
        h.on('transform_user_input', () => void calls.push('a-input'), { priority: 100 });
      }),
    ]);
    await inTurn(runtime, async (t) => {
      await t.transformUserInput('x');
      await t.interceptToolCall(write());
    });
    expect(calls).toEqual(['a-input', 'b-input', 'b-tool', 'a-tool']);
  });

  it('puts validators after every mutator, then orders each phase by priority, load order, registration', async () => {
    const seen: string[] = [];
    const saw = (label: string) => () => void seen.push(label);
    const validate = { phase: 'validate' as const };
    const { runtime } = await runtimeOf([
      ext('zed', (h) => {
        h.on('intercept_tool_call', saw('zed:check1'), { ...validate, priority: 0 });
        h.on('intercept_tool_call', saw('zed:mutate'), { priority: 500 });
        h.on('intercept_tool_call', saw('zed:check2'), { ...validate, priority: 0 });
      }),
      ext('amy', (h) => {
        h.on('intercept_tool_call', saw('amy:check'), { ...validate, priority: 0 });
        h.on('intercept_tool_call', saw('amy:late-check'), { ...validate, priority: 1 });
        h.on('intercept_tool_call', saw('amy:mutate'), { priority: 500 });
      }),
    ]);
    await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(seen).toEqual([
      'amy:mutate',
      'zed:mutate',
      'amy:check',
      'zed:check1',
      'zed:check2',
      'amy:late-check',
    ]);
  });
});
