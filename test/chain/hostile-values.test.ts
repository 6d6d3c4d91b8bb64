import { rewrite } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it, vi } from 'vitest';
import type { RegisteredHandler } from '../../src/chain/handler.js';
import { runChain } from '../../src/chain/run-chain.js';
import { releaseIfIdle, type Watched, watch } from '../../src/chain/watchdog.js';
import { HOOKS } from '../../src/hooks/index.js';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';
import {
  drain,
  hostileErrors,
  hostileResults,
  noEscapes,
  promiseWithThrowingConstructor,
  trapEverything,
} from '../support/hostile-values.js';

/**
 * Whatever a handler throws, rejects with or returns, the chain settles to an outcome decided by
 * the handler's `onError`, the host never sees an exception, and no rejection is left unhandled.
 */
const ways: Record<string, () => unknown> = {};
for (const [name, make] of Object.entries(hostileErrors())) {
  ways[`throws ${name}`] = () => {
    throw make();
  };
  ways[`rejects with ${name}`] = () => Promise.reject(make());
  ways[`rejects later with ${name}`] = () =>
    new Promise((_, reject) => setTimeout(() => reject(make()), 1));
}
for (const [name, make] of Object.entries(hostileResults())) ways[`returns ${name}`] = make;

describe('hostile handler values', () => {
  noEscapes();

  for (const [way, handler] of Object.entries(ways)) {
    it(`a tool guard that ${way} blocks the call (fails closed), naming extension and hook`, async () => {
      const after = vi.fn();
      const { runtime, logger } = await runtimeOf([
        ext('hostile', (h) => h.on('intercept_tool_call', handler as never, { priority: 1 })),
        ext('after', (h) => h.on('intercept_tool_call', after, { priority: 2 })),
      ]);
      const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'hostile', changed: false });
      expect(blockedOutcome(outcome).message).toMatch(
        /^Blocked because extension "hostile" failed in intercept_tool_call \(.+\)\.$/,
      );
      expect(outcome.trace).toEqual([
        expect.objectContaining({
          extension: 'hostile',
          action: 'block',
          error: expect.any(String),
        }),
      ]);
      expect(after).not.toHaveBeenCalled();
      expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
      // The outcome is data: it crosses to a host as JSON unchanged.
      expect(JSON.parse(JSON.stringify(outcome))).toEqual(outcome);
    });

    it(`an input hook handler that ${way} is skipped (fails open) and the chain goes on`, async () => {
      const { runtime } = await runtimeOf([
        ext('hostile', (h) => h.on('transform_user_input', handler as never, { priority: 1 })),
        ext('after', (h) => h.on('transform_user_input', (e) => rewrite(`${e.userMessage}!`))),
      ]);
      const outcome = await inTurn(runtime, (t) => t.transformUserInput('hi'));
      expect(outcome).toMatchObject({ blocked: false, changed: true, value: 'hi!' });
      expect(outcome.trace.map((e) => e.action)).toEqual(['error', 'rewrite']);
      expect(outcome.trace[0]?.error).toMatch(
        /^extension "hostile" failed in transform_user_input: /,
      );
    });
  }

  it('describes an Error whose message getter throws with its name, and a proxy with a fixed text', async () => {
    const [first, second] = [
      hostileErrors()['an Error whose message getter throws'],
      trapEverything(new Error('x')),
    ];
    const { runtime } = await runtimeOf([
      ext('one', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            throw first?.();
          },
          { onError: 'pass' },
        ),
      ),
      ext('two', (h) =>
        h.on(
          'intercept_tool_call',
          () => {
            throw second;
          },
          { onError: 'pass', priority: 200 },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome.trace.map((e) => e.error)).toEqual([
      'extension "one" failed in intercept_tool_call: threw Error (its message cannot be read)',
      'extension "two" failed in intercept_tool_call: threw a value that cannot be read',
    ]);
  });
});

describe('the timeout watchdog with hostile values', () => {
  noEscapes();

  it('times out a thenable that never settles, read through a getter once', async () => {
    let reads = 0;
    const { runtime } = await runtimeOf([
      ext('stuck', (h) =>
        h.on(
          'intercept_tool_call',
          (() => ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable that never settles is the point
            get then() {
              reads++;
              if (reads > 1) throw new Error('read twice');
              return () => {};
            },
          })) as never,
          { timeoutMs: 20 },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'stuck' });
    expect(blockedOutcome(outcome).message).toMatch(/timed out after 20 ms/);
  });

  it('ignores a hostile rejection that arrives after the timeout, leaving nothing unhandled', async () => {
    const late: Array<() => void> = [];
    const { runtime } = await runtimeOf([
      ext('late', (h) =>
        h.on(
          'intercept_tool_call',
          () =>
            promiseWithThrowingConstructor(Promise.resolve()).then(
              () =>
                new Promise((_, reject) => {
                  late.push(() => reject(trapEverything(new Error('late'))));
                }),
            ),
          { timeoutMs: 20, onError: 'pass' },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace[0]?.action).toBe('error');
    for (const reject of late) reject();
    await drain();
  });

  it('times out, then a later handler that throws a proxy still settles the chain', async () => {
    const { runtime } = await runtimeOf([
      ext('a-stuck', (h) =>
        h.on('transform_user_input', () => new Promise(() => {}), { timeoutMs: 20, priority: 1 }),
      ),
      ext('b-hostile', (h) =>
        h.on(
          'transform_user_input',
          () => {
            throw trapEverything(new Error('x'));
          },
          { priority: 2, onError: 'block' },
        ),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.transformUserInput('m'));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'b-hostile' });
    expect(outcome.trace.map((e) => e.action)).toEqual(['error', 'block']);
  });
});

describe('a fault of the runner itself', () => {
  noEscapes();

  /** A declaration whose `event` fails after the first call: a fault no handler could cause. */
  function faultyDeclaration() {
    let calls = 0;
    const base = HOOKS.transform_user_input;
    return {
      ...base,
      event: (...args: Parameters<typeof base.event>) => {
        if (++calls > 1) throw trapEverything(new Error('runner fault'));
        return base.event(...args);
      },
    };
  }

  const registered = (fn: () => unknown): RegisteredHandler => ({
    extension: 'ext',
    hook: 'transform_user_input',
    fn,
    priority: 1,
    timeoutMs: 1000,
    onError: 'pass',
    tools: undefined,
    when: undefined,
    phase: 'mutate',
    shadow: false,
    log: memoryLogger(),
    loggedErrors: new Set(),
  });
  const turn = { sessionId: 's', turnId: 't', platform: 'cli', state: {} };

  it('settles the chain as a block, whether it runs synchronously or not', async () => {
    const sync = runChain(
      faultyDeclaration(),
      [registered(() => rewrite('x'))],
      { userMessage: 'm' },
      turn,
    );
    expect(sync).toMatchObject({ blocked: true, blockedBy: 'ext', changed: true });
    expect((sync as { message: string }).message).toMatch(
      /^Blocked because the transform_user_input chain failed while running extension "ext" \(a value that cannot be read\)\. This is a fault in hermes-extensions/,
    );
    const later = await runChain(
      faultyDeclaration(),
      [registered(async () => rewrite('x'))],
      { userMessage: 'm' },
      turn,
    );
    expect(later).toMatchObject({ blocked: true, blockedBy: 'ext' });
  });
});

describe('action names', () => {
  it('an action named like a member of every object is an unknown action', async () => {
    for (const action of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const { runtime } = await runtimeOf([
        ext('odd', (h) => h.on('intercept_tool_call', (() => ({ action, value: {} })) as never)),
      ]);
      const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'odd' });
      expect(blockedOutcome(outcome).message).toContain(`returned unknown action "${action}"`);
    }
  });
});

describe('the watchdog itself', () => {
  noEscapes();

  const waiter = (onTimeout: () => void): Watched => ({
    deadline: performance.now(),
    watching: false,
    previousWait: undefined,
    nextWait: undefined,
    onTimeout,
  });

  it('times out every due wait even when one of them throws', async () => {
    const timedOut: string[] = [];
    let settle: () => void = () => {};
    const bothDone = new Promise<void>((resolve) => {
      settle = resolve;
    });
    watch(
      waiter(() => {
        timedOut.push('calm');
        settle();
      }),
    );
    watch(
      waiter(() => {
        timedOut.push('throwing');
        throw trapEverything(new Error('x'));
      }),
    );
    await bothDone;
    releaseIfIdle();
    expect(timedOut).toEqual(['throwing', 'calm']);
  });
});
