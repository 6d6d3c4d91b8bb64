import { block } from 'hermes-extensions';
import { describe, expect, it, vi } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

describe('tool matchers', () => {
  async function called(tools: never, toolNames: string[]) {
    const handler = vi.fn(() => undefined);
    const { runtime } = await runtimeOf([
      ext('m', (h) => h.on('intercept_tool_call', handler, { tools })),
    ]);
    const hits: string[] = [];
    await inTurn(runtime, async (t) => {
      for (const toolName of toolNames) {
        const before = handler.mock.calls.length;
        await t.interceptToolCall({ toolName, toolArgs: {} });
        if (handler.mock.calls.length > before) hits.push(toolName);
      }
    });
    return hits;
  }
  const names = ['write', 'writer', 'rewrite', 'edit', 'multi_edit', 'bash', 'Write'];

  it('a string matches the exact tool name only', async () => {
    expect(await called('write' as never, names)).toEqual(['write']);
  });

  it('a RegExp matches by test()', async () => {
    expect(await called(/edit$/ as never, names)).toEqual(['edit', 'multi_edit']);
  });

  it('an array matches any of its entries', async () => {
    expect(await called(['bash', /^Wr/i] as never, names)).toEqual([
      'write',
      'writer',
      'bash',
      'Write',
    ]);
  });

  it('a global RegExp does not alternate between calls', async () => {
    expect(await called(/write/g as never, ['write', 'write', 'write'])).toEqual([
      'write',
      'write',
      'write',
    ]);
  });

  it('a handler without tools sees every tool call', async () => {
    expect(await called(undefined as never, names)).toEqual(names);
  });

  it('a non-matching blocker does not block, and appears nowhere in the trace', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) => h.on('intercept_tool_call', () => block('no'), { tools: ['write'] })),
      ext('log', (h) => h.on('intercept_tool_call', () => undefined)),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'read', toolArgs: {} }),
    );
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace.map((e) => e.extension)).toEqual(['log']);
  });

  it('is listed with the extension', async () => {
    const { runtime } = await runtimeOf([
      ext('m', (h) =>
        h.on('intercept_tool_call', () => undefined, { tools: ['write', /^edit/], priority: 5 }),
      ),
    ]);
    expect(runtime.extensions[0]?.hooks).toEqual([
      { hook: 'intercept_tool_call', priority: 5, tools: ['write', '/^edit/'] },
    ]);
  });

  it('`tools` on another hook, or an empty list, is a setup error', async () => {
    const { runtime } = await runtimeOf([
      ext('wrong-hook', (h) =>
        h.on('transform_user_input', () => undefined, { tools: 'write' } as never),
      ),
      ext('empty', (h) => h.on('intercept_tool_call', () => undefined, { tools: [] })),
    ]);
    expect(runtime.extensions.map((e) => e.status)).toEqual(['error', 'error']);
    expect(runtime.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /only applies to intercept_tool_call/,
    );
  });
});
