import type { HookName, OnErrorPolicy } from 'hermes-extensions';
import { createRuntime, rewrite } from 'hermes-extensions';
import { describe, expect, it, vi } from 'vitest';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';

/** Ways a handler can fail, each as a handler. */
const failures: Record<string, () => unknown> = {
  throws: () => {
    throw new Error('boom');
  },
  rejects: () => Promise.reject(new Error('async boom')),
  'returns an unknown action': () => ({ action: 'explode', value: 'x' }),
  'returns a string': () => 'block',
  'returns block without a message': () => ({ action: 'block' }),
};

async function chainWithFailure(fail: () => unknown, onError?: OnErrorPolicy) {
  const after = vi.fn(() => undefined);
  const { runtime, logger } = await runtimeOf([
    ext('broken', (h) =>
      h.on('intercept_tool_call', fail as never, { priority: 1, ...(onError ? { onError } : {}) }),
    ),
    ext('after', (h) => h.on('intercept_tool_call', after, { priority: 2 })),
  ]);
  const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
  return { outcome, after, logger };
}

describe('handler errors', () => {
  for (const [kind, fail] of Object.entries(failures)) {
    it(`a handler that ${kind} fails closed by default on intercept_tool_call`, async () => {
      const { outcome, after } = await chainWithFailure(fail);
      expect(outcome.blocked).toBe(true);
      expect(blockedOutcome(outcome).blockedBy).toBe('broken');
      expect(blockedOutcome(outcome).message).toMatch(
        /extension "broken" failed in intercept_tool_call/,
      );
      expect(after).not.toHaveBeenCalled();
      expect(outcome.trace[0]).toMatchObject({ extension: 'broken', action: 'block' });
      expect(outcome.trace[0]?.error).toMatch(/broken.*intercept_tool_call/);
    });

    it(`a handler that ${kind} with onError 'pass' is skipped and the chain goes on`, async () => {
      const { outcome, after, logger } = await chainWithFailure(fail, 'pass');
      expect(outcome.blocked).toBe(false);
      expect(after).toHaveBeenCalledOnce();
      expect(outcome.trace.map((e) => e.action)).toEqual(['error', 'pass']);
      expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    });
  }

  it('transform_user_input and before_llm_call fail open by default', async () => {
    const { runtime } = await runtimeOf([
      ext('broken', (h) => {
        h.on('transform_user_input', () => {
          throw new Error('x');
        });
        h.on('before_llm_call', () => {
          throw new Error('y');
        });
      }),
    ]);
    await inTurn(runtime, async (t) => {
      const input = await t.transformUserInput('hello');
      expect(input).toMatchObject({ blocked: false, value: 'hello' });
      const llm = await t.beforeLlmCall({ systemPrompt: 's', messages: [] });
      expect(llm.blocked).toBe(false);
      expect(llm.trace[0]?.action).toBe('error');
    });
  });

  it("onError 'block' makes an input hook fail closed", async () => {
    const { runtime } = await runtimeOf([
      ext('strict', (h) =>
        h.on(
          'transform_user_input',
          () => {
            throw new Error('cannot classify');
          },
          { onError: 'block' },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('hello'));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'strict' });
    expect(blockedOutcome(outcome).message).toContain('cannot classify');
  });

  it('names the extension, the hook and what was wrong for invalid results', async () => {
    const cases: Array<[HookName, unknown, RegExp]> = [
      [
        'intercept_tool_call',
        { action: 'inject_system', value: 'x' },
        /unknown action "inject_system"/,
      ],
      ['intercept_tool_call', { action: 'rewrite', value: ['a'] }, /plain object/],
      ['intercept_tool_call', { action: 'rewrite', value: 'path' }, /plain object/],
      ['intercept_tool_call', { action: 'block', value: 42 }, /block without a message/],
      ['before_llm_call', { action: 'inject_system' }, /inject_system/],
      ['before_llm_call', { action: 'inject_user', value: '' }, /non-empty/],
      ['before_llm_call', { action: 'rewrite', value: {} }, /systemPrompt, messages or both/],
      ['before_llm_call', { action: 'rewrite', value: { messages: [{ role: 'x' }] } }, /messages/],
      ['transform_user_input', { action: 'rewrite', value: 5 }, /must be a string/],
      ['transform_user_input', { action: 'pass', metadata: 'tag' }, /metadata/],
      [
        'transform_user_input',
        { action: 'pass', metadata: [1] },
        /invalid metadata: must be a plain object \(got an array\)/,
      ],
      ['transform_user_input', { action: 'pass', value: 'x' }, /pass takes only metadata/],
      ['intercept_tool_call', { action: 'rewrite', value: {}, extra: 1 }, /extra/],
      ['transform_user_input', 7, /invalid result/],
    ];
    for (const [hook, result, reason] of cases) {
      const { runtime } = await runtimeOf([
        ext('bad', (h) => h.on(hook, (() => result) as never, { onError: 'pass' })),
      ]);
      const outcome = await inTurn(runtime, (t) =>
        hook === 'intercept_tool_call'
          ? t.interceptToolCall(write())
          : hook === 'before_llm_call'
            ? t.beforeLlmCall({ systemPrompt: 's', messages: [] })
            : t.transformUserInput('m'),
      );
      const error = outcome.trace[0]?.error ?? '';
      expect(error, JSON.stringify(result)).toContain(`extension "bad" failed in ${hook}`);
      expect(error, JSON.stringify(result)).toMatch(reason);
      expect(outcome.changed).toBe(false);
    }
  });

  it('logs a repeated failure once per handler', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('flaky', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            throw new Error('same');
          },
          { onError: 'pass' },
        ),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      for (let i = 0; i < 5; i++) await t.interceptToolCall(write());
    });
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/\[hermes:flaky\].*same/);
  });

  it('a result whose fields throw when read is a handler error, not a crash', async () => {
    const { outcome } = await chainWithFailure(() => ({
      get action(): string {
        throw new Error('trap');
      },
    }));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'broken' });
    expect(blockedOutcome(outcome).message).toMatch(/cannot be read.*trap/);
  });

  it('a logger that throws does not turn a handled failure into a crash', async () => {
    const throwing = {
      debug() {},
      info() {},
      warn() {
        throw new Error('log sink down');
      },
      error() {},
    };
    const runtime = await createRuntime({
      logger: throwing,
      extensions: [
        ext('broken', (h) =>
          h.on('intercept_tool_call', () => {
            throw new Error('x');
          }),
        ),
      ],
    });
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'broken' });
  });

  it('logs at most 50 distinct reasons per handler', async () => {
    let n = 0;
    const { runtime, logger } = await runtimeOf([
      ext('noisy', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            throw new Error(`failure ${n++}`);
          },
          { onError: 'pass' },
        ),
      ),
    ]);
    await inTurn(runtime, async (t) => {
      for (let i = 0; i < 80; i++) await t.interceptToolCall(write());
    });
    expect(logger.lines).toHaveLength(50);
  });

  it('a non-Error throw is still a handler error', async () => {
    const { outcome } = await chainWithFailure(() => {
      throw 'a string';
    });
    expect(outcome.blocked).toBe(true);
    expect(blockedOutcome(outcome).message).toContain('a string');
  });
});

describe('timeouts', () => {
  it('an async handler past its timeoutMs is a handler error (fail closed on tools)', async () => {
    const after = vi.fn();
    const { runtime } = await runtimeOf([
      ext('slow', (h) =>
        h.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: 20, priority: 1 }),
      ),
      ext('after', (h) => h.on('intercept_tool_call', after, { priority: 2 })),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'slow' });
    expect(blockedOutcome(outcome).message).toMatch(/timed out after 20 ms/);
    expect(after).not.toHaveBeenCalled();
  });

  it("with onError 'pass' a timed-out handler is skipped and its late result ignored", async () => {
    let resolveLate: (value: unknown) => void = () => {};
    const { runtime } = await runtimeOf([
      ext('slow', (h) =>
        h.on(
          'transform_user_input',
          () =>
            new Promise((resolve) => {
              resolveLate = resolve as (value: unknown) => void;
            }),
          { timeoutMs: 20, priority: 1 },
        ),
      ),
      ext('next', (h) => h.on('transform_user_input', (e) => rewrite(`${e.userMessage}+next`))),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('m'));
    resolveLate(rewrite('late'));
    expect(outcome.value).toBe('m+next');
    expect(outcome.trace[0]).toMatchObject({ extension: 'slow', action: 'error' });
    expect(outcome.trace[0]?.durationMs).toBeGreaterThanOrEqual(19);
  });

  it('defaults to 5000 ms per handler', async () => {
    vi.useFakeTimers();
    try {
      const { runtime } = await runtimeOf([
        ext('slow', (h) => h.on('intercept_tool_call', () => new Promise(() => {}))),
      ]);
      let outcome: unknown;
      const done = inTurn(runtime, async (t) => {
        outcome = await t.interceptToolCall(write());
      });
      await vi.advanceTimersByTimeAsync(4999);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(2);
      await done;
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'slow' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('times each handler on its own, not the chain as a whole', async () => {
    // Fake timers: three handlers of 30 ms each run 90 ms in all, past one handler's 50 ms,
    // without the test depending on how busy the machine is.
    vi.useFakeTimers();
    try {
      const sleepy = () => () => new Promise<void>((r) => setTimeout(r, 30));
      const { runtime } = await runtimeOf([
        ext('a', (h) => h.on('intercept_tool_call', sleepy(), { timeoutMs: 50 })),
        ext('b', (h) => h.on('intercept_tool_call', sleepy(), { timeoutMs: 50 })),
        ext('c', (h) => h.on('intercept_tool_call', sleepy(), { timeoutMs: 50 })),
      ]);
      const pending = inTurn(runtime, (t) => t.interceptToolCall(write()));
      await vi.advanceTimersByTimeAsync(100);
      const outcome = await pending;
      expect(outcome.blocked).toBe(false);
      expect(outcome.trace.map((e) => e.action)).toEqual(['pass', 'pass', 'pass']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a synchronous handler that ran past its timeoutMs has its result discarded', async () => {
    const { runtime } = await runtimeOf([
      ext('busy', (h) =>
        h.on(
          'transform_user_input',
          () => {
            const until = performance.now() + 30;
            while (performance.now() < until) {
              // busy: a synchronous handler cannot be interrupted
            }
            return rewrite('too late');
          },
          { timeoutMs: 5 },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('m'));
    expect(outcome.value).toBe('m');
    expect(outcome.trace[0]?.error).toMatch(/past its timeoutMs of 5/);
  });
});
