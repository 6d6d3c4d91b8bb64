import {
  ask,
  block,
  defineExtension,
  type ObserverPayload,
  rewrite,
  runConversation,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

/** `mode: shadow` in an extension's config section (docs/chain-semantics.md, Shadow mode). */
const shadow = (...names: string[]) => ({
  extensions: Object.fromEntries(names.map((name) => [name, { mode: 'shadow' }])),
});

const guard = ext('new-guard', (h) =>
  h.on('intercept_tool_call', (e) => block(`no writes to ${String(e.toolArgs.path)}`), {
    priority: 10,
  }),
);

describe('shadow mode: a shadowed handler decides, the chain records it and applies nothing', () => {
  it('turns a block into a pass recorded as would-block; later handlers run and still decide', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf(
      [
        guard,
        ext('after', (h) =>
          h.on('intercept_tool_call', () => void seen.push('after'), { priority: 20 }),
        ),
      ],
      { config: shadow('new-guard') },
    );
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome.blocked).toBe(false);
    expect(outcome.changed).toBe(false);
    expect(seen).toEqual(['after']);
    expect(outcome.trace[0]).toMatchObject({
      extension: 'new-guard',
      action: 'pass',
      shadow: { action: 'block', message: 'no writes to src/a.ts' },
    });
  });

  it('does not shadow another extension: an enforced guard after it still blocks', async () => {
    const { runtime } = await runtimeOf(
      [guard, ext('old-guard', (h) => h.on('intercept_tool_call', () => block('old says no')))],
      { config: shadow('new-guard') },
    );
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'old-guard' });
    expect(outcome.trace.map((e) => [e.extension, e.action, e.shadow?.action])).toEqual([
      ['new-guard', 'pass', 'block'],
      ['old-guard', 'block', undefined],
    ]);
  });

  it('records an ask without asking, and a rewrite without applying it (a shadowed guard changes nothing)', async () => {
    const { runtime } = await runtimeOf(
      [
        ext('asker', (h) => h.on('intercept_tool_call', () => ask('sure?'), { priority: 1 })),
        ext('mover', (h) =>
          h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'elsewhere' }), {
            priority: 2,
          }),
        ),
      ],
      { config: shadow('asker', 'mover') },
    );
    const call = write();
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(call));
    expect(outcome.blocked).toBe(false);
    if (outcome.blocked) return;
    expect(outcome.ask).toBeUndefined();
    expect(outcome.changed).toBe(false);
    expect(outcome.value).toEqual(call.toolArgs);
    expect(outcome.trace.map((e) => [e.action, e.shadow])).toEqual([
      ['pass', { action: 'ask', message: 'sure?' }],
      ['pass', { action: 'rewrite' }],
    ]);
  });

  it('records a failure that would have blocked (onError: block), async handlers too', async () => {
    const { runtime } = await runtimeOf(
      [
        ext('broken', (h) =>
          h.on(
            'intercept_tool_call',
            () => {
              throw new Error('boom');
            },
            { onError: 'block', priority: 1 },
          ),
        ),
        ext('slow', (h) => h.on('intercept_tool_call', async () => block('later no'))),
      ],
      { config: shadow('broken', 'slow') },
    );
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace.map((e) => [e.extension, e.action, e.shadow?.action])).toEqual([
      ['broken', 'error', 'block'],
      ['slow', 'pass', 'block'],
    ]);
    expect(outcome.trace[0]?.shadow?.message).toMatch(
      /failed in intercept_tool_call \(threw Error: boom\)/,
    );
  });

  it('reports hook_decision with would_block and the shadowed decisions, though the call passed', async () => {
    const decisions: ObserverPayload[] = [];
    const { runtime } = await runtimeOf(
      [guard, ext('recorder', (h) => h.observe('hook_decision', (p) => void decisions.push(p)))],
      { config: shadow('new-guard') },
    );
    await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ ...write(), toolCallId: 'c1' }),
    );
    expect(decisions).toEqual([
      expect.objectContaining({
        hook: 'intercept_tool_call',
        tool_name: 'write',
        blocked: false,
        changed: false,
        decided_by: [],
        would_block: true,
        shadow: [{ extension: 'new-guard', action: 'block', message: 'no writes to src/a.ts' }],
      }),
    ]);
  });

  it('runs the tool in the agent loop, where the guard would have refused it', async () => {
    const ran: string[] = [];
    const { runtime } = await runtimeOf([guard], { config: shadow('new-guard') });
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'go',
      systemPrompt: 'sys',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('write', { path: 'src/a.ts' }, 'w1')] },
        { content: 'done' },
      ]),
      tools: {
        write: {
          execute: () => {
            ran.push('write');
            return 'written';
          },
        },
      },
    });
    expect(ran).toEqual(['write']);
    expect(result.finalResponse).toBe('done');
  });
});

describe('shadow mode: the `mode` key', () => {
  it("is the framework's: read out of the section before the extension's configSchema sees it", async () => {
    const strict = defineExtension({
      name: 'strict',
      configSchema: z.strictObject({ limit: z.number().default(1) }),
      setup(h) {
        h.on('intercept_tool_call', () => block(`limit ${h.config.limit}`));
      },
    });
    const { runtime } = await runtimeOf([strict], {
      config: { extensions: { strict: { mode: 'shadow', limit: 2 } } },
    });
    expect(runtime.diagnostics).toEqual([]);
    expect(runtime.extensions[0]).toMatchObject({ status: 'enabled', mode: 'shadow' });
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome.trace[0]?.shadow).toEqual({ action: 'block', message: 'limit 2' });
  });

  it('enforces with `mode: enforce` (the default) and refuses any other value, failing closed', async () => {
    const enforced = await runtimeOf([guard], {
      config: { extensions: { 'new-guard': { mode: 'enforce' } } },
    });
    expect((await inTurn(enforced.runtime, (t) => t.interceptToolCall(write()))).blocked).toBe(
      true,
    );
    expect(enforced.runtime.extensions[0]?.mode).toBeUndefined();
    const { runtime } = await runtimeOf([guard], {
      config: { extensions: { 'new-guard': { mode: 'shadowed' } } },
    });
    expect(runtime.extensions[0]).toMatchObject({ status: 'error', code: 'CONFIG_SCHEMA' });
    expect(runtime.extensions[0]?.reason).toMatch(
      /extensions\.new-guard\.mode.*"enforce" or "shadow"/,
    );
    // An enabled extension that failed to load refuses every tool call (on_load_error: block).
    expect((await inTurn(runtime, (t) => t.interceptToolCall(write()))).blocked).toBe(true);
  });

  it('refuses no call when a shadowed extension fails to set up: it would enforce nothing', async () => {
    const broken = ext('broken-guard', () => {
      throw new Error('setup broke');
    });
    const { runtime } = await runtimeOf([broken], { config: shadow('broken-guard') });
    expect(runtime.extensions[0]).toMatchObject({
      status: 'error',
      code: 'SETUP_FAILED',
      mode: 'shadow',
    });
    expect((await inTurn(runtime, (t) => t.interceptToolCall(write()))).blocked).toBe(false);
  });
});
