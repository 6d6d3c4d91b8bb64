import { ask, block, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

describe('ask: approval as an outcome of intercept_tool_call', () => {
  it('does not end the chain: later handlers run, later rewrites apply, the first ask is kept', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('first-asker', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            seen.push('first-asker');
            return ask('deploys need a person');
          },
          { priority: 10 },
        ),
      ),
      ext('second-asker', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            seen.push('second-asker');
            return ask('me too');
          },
          { priority: 20 },
        ),
      ),
      ext('redirect', (h) =>
        h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'src/b.ts' }), {
          priority: 30,
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(seen).toEqual(['first-asker', 'second-asker']);
    expect(outcome.blocked).toBe(false);
    if (outcome.blocked) return;
    expect(outcome.ask).toEqual({ message: 'deploys need a person', askedBy: 'first-asker' });
    expect(outcome.value).toEqual({ path: 'src/b.ts' });
    expect(outcome.trace.map((e) => e.action)).toEqual(['ask', 'ask', 'rewrite']);
  });

  it('gives way to a later block: a blocked outcome carries no ask', async () => {
    const { runtime } = await runtimeOf([
      ext('asker', (h) => h.on('intercept_tool_call', () => ask('sure?'), { priority: 1 })),
      ext('guard', (h) => h.on('intercept_tool_call', () => block('no'), { priority: 2 })),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard', message: 'no' });
    expect('ask' in outcome).toBe(false);
  });

  it('lets a validator ask, after every mutator, on the final value', async () => {
    const { runtime } = await runtimeOf([
      ext('validator', (h) =>
        h.on(
          'intercept_tool_call',
          (e) =>
            String(e.toolArgs.path).startsWith('src/') ? ask(`write ${e.toolArgs.path}?`) : pass(),
          { phase: 'validate', priority: 1 },
        ),
      ),
      ext('mover', (h) =>
        h.on('intercept_tool_call', () => rewrite({ path: 'src/moved.ts' }), { priority: 500 }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write('docs/a.md')));
    expect(outcome).toMatchObject({
      blocked: false,
      ask: { message: 'write src/moved.ts?', askedBy: 'validator' },
    });
  });

  it('is kept async as sync, and an outcome nobody asked in has no ask key', async () => {
    const { runtime } = await runtimeOf([
      ext('slow-asker', (h) =>
        h.on('intercept_tool_call', async (e) =>
          e.toolName === 'deploy' ? ask('deploy?') : undefined,
        ),
      ),
    ]);
    const asked = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'deploy', toolArgs: {} }),
    );
    expect(asked).toMatchObject({
      blocked: false,
      ask: { message: 'deploy?', askedBy: 'slow-asker' },
    });
    const passed = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(Object.keys(passed)).not.toContain('ask');
  });

  it('refuses an ask without a message, and an ask outside intercept_tool_call, as handler errors', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('mute', (h) =>
        h.on('intercept_tool_call', () => ({ action: 'ask', value: '' }) as never),
      ),
      ext('wrong-hook', (h) =>
        h.on('transform_user_input', () => ({ action: 'ask', value: 'ok?' }) as never),
      ),
    ]);
    const tool = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    // Fail closed, as every tool-call handler error does by default.
    expect(tool).toMatchObject({ blocked: true, blockedBy: 'mute' });
    expect(tool.blocked && tool.message).toMatch(/returned ask without a message/);
    const input = await inTurn(runtime, (t) => t.transformUserInput('hi'));
    expect(input).toMatchObject({ blocked: false, value: 'hi' });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      /wrong-hook.*transform_user_input.*unknown action "ask"; transform_user_input allows pass, rewrite, block/,
    );
  });

  it('keeps an ask whose metadata is not JSON data an ask (the metadata is dropped), even under onError: pass', async () => {
    const { runtime } = await runtimeOf([
      ext('asker', (h) =>
        h.on('intercept_tool_call', () => ask('sure?', { when: new Date(0) }), { onError: 'pass' }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: false, ask: { message: 'sure?', askedBy: 'asker' } });
    expect(outcome.metadata).toEqual({});
    expect(outcome.trace[0]?.error).toMatch(
      /asked all the same; the metadata was dropped|metadata\.when/,
    );
  });
});
