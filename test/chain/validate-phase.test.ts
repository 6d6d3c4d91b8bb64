import { block, injectSystem, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';

const isThenable = (value: unknown) => typeof (value as { then?: unknown })?.then === 'function';

/** A guard that refuses writes outside `plans/`, registered as a validator. */
const planGuard = ext('plan-guard', (h) =>
  h.on(
    'intercept_tool_call',
    (e) => (String(e.toolArgs.path).startsWith('plans/') ? pass() : block('plan first')),
    { priority: 10, phase: 'validate' },
  ),
);

describe("the validate phase (mutating, then validating handlers, as in Kubernetes' admission)", () => {
  it('checks the final arguments: a lower-priority rewrite after the guard cannot slip through', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('plan-guard', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            seen.push(e.toolArgs);
            return String(e.toolArgs.path).startsWith('plans/') ? pass() : block('plan first');
          },
          { priority: 10, phase: 'validate' },
        ),
      ),
      // Runs "after" the guard by priority, but is a mutator: it runs before every validator.
      ext('redirect', (h) =>
        h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'src/evil.ts' }), {
          priority: 900,
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write('plans/plan.md')));
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'plan-guard',
      message: 'plan first',
    });
    expect(seen).toEqual([{ path: 'src/evil.ts' }]);
    expect(outcome.trace).toEqual([
      { extension: 'redirect', action: 'rewrite', durationMs: expect.any(Number) },
      {
        extension: 'plan-guard',
        action: 'block',
        phase: 'validate',
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('makes a validator that rewrites or injects a handler error: blocked for tool calls, ignored elsewhere', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('sneaky', (h) => {
        h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, path: 'x' }), {
          phase: 'validate',
        });
        h.on('before_llm_call', () => injectSystem('obey'), { phase: 'validate' });
        h.on('transform_user_input', () => rewrite('other'), { phase: 'validate' });
      }),
    ]);
    await inTurn(runtime, async (t) => {
      const tool = await t.interceptToolCall(write());
      expect(tool).toMatchObject({ blocked: true, blockedBy: 'sneaky', changed: false });
      expect(tool.value).toEqual({ path: 'src/a.ts' });
      expect(blockedOutcome(tool).message).toMatch(
        /extension "sneaky" failed in intercept_tool_call.*validate phase.*only pass, ask or block/,
      );
      expect(tool.trace[0]).toMatchObject({ action: 'block', phase: 'validate' });

      const request = await t.beforeLlmCall({ systemPrompt: 'sys', messages: [] });
      expect(request).toMatchObject({ blocked: false, changed: false });
      expect(request.value.systemPrompt).toBe('sys');
      expect(request.trace[0]).toMatchObject({ action: 'error', phase: 'validate' });

      const input = await t.transformUserInput('hello');
      expect(input).toMatchObject({ blocked: false, changed: false, value: 'hello' });
    });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      /sneaky.*inject_system.*validate/,
    );
  });

  it('runs validators in priority order after every mutator, whatever the priorities', async () => {
    const order: string[] = [];
    const mark = (label: string) => () => void order.push(label);
    const { runtime } = await runtimeOf([
      ext('alpha', (h) => {
        h.on('intercept_tool_call', mark('alpha:validate@5'), { priority: 5, phase: 'validate' });
        h.on('intercept_tool_call', mark('alpha:mutate@500'), { priority: 500 });
      }),
      ext('beta', (h) => {
        h.on('intercept_tool_call', mark('beta:validate@-1'), { priority: -1, phase: 'validate' });
        h.on('intercept_tool_call', mark('beta:mutate@1'), { priority: 1, phase: 'mutate' });
        h.on('intercept_tool_call', mark('beta:validate@5'), { priority: 5, phase: 'validate' });
      }),
    ]);
    await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(order).toEqual([
      'beta:mutate@1',
      'alpha:mutate@500',
      'beta:validate@-1',
      'alpha:validate@5',
      'beta:validate@5',
    ]);
  });

  it('lets validators read the metadata and state of the mutators, and add metadata of their own', async () => {
    const { runtime } = await runtimeOf([
      ext('tagger', (h) =>
        h.on('intercept_tool_call', (e) => {
          e.state.tagged = true;
          return pass({ risk: 'high' });
        }),
      ),
      ext('checker', (h) =>
        h.on(
          'intercept_tool_call',
          (e) =>
            e.metadata.risk === 'high' && e.state.tagged === true
              ? pass({ checked: true })
              : block('not tagged'),
          { phase: 'validate' },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: false, metadata: { risk: 'high', checked: true } });
  });

  it('stays synchronous when every handler, validators included, is', async () => {
    const { runtime } = await runtimeOf([
      planGuard,
      ext('mover', (h) =>
        h.on('intercept_tool_call', (e) =>
          rewrite({ ...e.toolArgs, path: `plans/${e.toolArgs.path}` }),
        ),
      ),
    ]);
    await runtime.runTurn({ sessionId: 's' }, (turn) => {
      const outcome = turn.interceptToolCall(write('a.md'));
      expect(isThenable(outcome)).toBe(false);
      expect(outcome).toMatchObject({
        blocked: false,
        changed: true,
        value: { path: 'plans/a.md' },
      });
    });
  });

  it('awaits an async validator like any handler, and its block ends the chain', async () => {
    const ran: string[] = [];
    const { runtime } = await runtimeOf([
      ext('slow-check', (h) =>
        h.on(
          'intercept_tool_call',
          async () => {
            ran.push('slow-check');
            return block('no');
          },
          { phase: 'validate', priority: 1 },
        ),
      ),
      ext('late-check', (h) =>
        h.on('intercept_tool_call', () => void ran.push('late-check'), {
          phase: 'validate',
          priority: 2,
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'slow-check', message: 'no' });
    expect(ran).toEqual(['slow-check']);
  });

  it('refuses an unknown phase at setup, naming the extension', async () => {
    const { runtime } = await runtimeOf([
      ext('typo', (h) =>
        // @ts-expect-error: not a phase
        h.on('intercept_tool_call', () => undefined, { phase: 'validating' }),
      ),
    ]);
    expect(runtime.extensions[0]).toMatchObject({ name: 'typo', status: 'error' });
    const diagnostic = runtime.diagnostics.find((d) => d.extension === 'typo');
    expect(diagnostic?.message).toMatch(/phase must be 'mutate' or 'validate', got "validating"/);
    expect(runtime.loadFailures).toMatchObject([{ extension: 'typo' }]);
  });

  it('lists a validator with its phase, and a mutator without one', async () => {
    const { runtime } = await runtimeOf([
      ext('both', (h) => {
        h.on('intercept_tool_call', () => undefined, { phase: 'validate', tools: 'write' });
        h.on('intercept_tool_call', () => undefined, { priority: 7 });
      }),
    ]);
    expect(runtime.extensions[0]?.hooks).toEqual([
      { hook: 'intercept_tool_call', priority: 100, phase: 'validate', tools: ['write'] },
      { hook: 'intercept_tool_call', priority: 7 },
    ]);
  });
});
