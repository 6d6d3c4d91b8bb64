import { block } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

/** A promise and the function that resolves it, for work a test finishes by hand. */
function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const warnings = (logger: { lines: Array<{ level: string; message: string }> }) =>
  logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);

describe('runtime.close()', () => {
  it('waits for observers still at work, then runs every onClose of every extension', async () => {
    const done: string[] = [];
    const release = deferred();
    const { runtime } = await runtimeOf([
      ext('slow-observer', (h) => {
        h.observe('hook_decision', async () => {
          await release.promise;
          done.push('observer');
        });
        h.onClose(() => {
          done.push('slow-observer closed');
        });
      }),
      ext('flusher', (h) => {
        h.onClose(async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          done.push('flusher closed');
        });
      }),
    ]);
    runtime.emit('hook_decision', { hook: 'intercept_tool_call', blocked: true });
    const closed = runtime.close();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(done).toEqual([]);
    release.resolve();
    await closed;
    expect(done[0]).toBe('observer');
    expect(done.slice(1).sort()).toEqual(['flusher closed', 'slow-observer closed']);
  });

  it('logs an onClose that throws, rejects or hangs, runs the others, and never throws', async () => {
    const closed: string[] = [];
    const { runtime, logger } = await runtimeOf([
      ext('thrower', (h) =>
        h.onClose(() => {
          throw new Error('disk gone');
        }),
      ),
      ext('rejecter', (h) => h.onClose(() => Promise.reject(new Error('socket reset')))),
      ext('hanger', (h) => h.onClose(() => new Promise(() => {}), { timeoutMs: 20 })),
      ext('weird', (h) =>
        h.onClose(() => {
          const error = new Error('x');
          Object.defineProperty(error, 'message', {
            get() {
              throw new Error('no message for you');
            },
          });
          throw error;
        }),
      ),
      ext('fine', (h) => h.onClose(() => void closed.push('fine'))),
    ]);
    await expect(runtime.close()).resolves.toBeUndefined();
    expect(closed).toEqual(['fine']);
    const logged = warnings(logger).join('\n');
    expect(logged).toMatch(/\[hermes:thrower\].*onClose failed.*disk gone/);
    expect(logged).toMatch(/\[hermes:rejecter\].*onClose failed.*socket reset/);
    expect(logged).toMatch(/\[hermes:hanger\].*onClose did not finish within 20 ms/);
    expect(logged).toMatch(/\[hermes:weird\].*onClose failed/);
  });

  it('does not wait past its bound for an observer that never settles', async () => {
    const { runtime, logger } = await runtimeOf([
      ext('stuck', (h) => h.observe('post_tool_call', () => new Promise(() => {}))),
    ]);
    runtime.emit('post_tool_call', { tool_name: 'write', status: 'ok' });
    await runtime.close({ timeoutMs: 20 });
    expect(warnings(logger).join('\n')).toMatch(
      /\[hermes:stuck\].*observer of post_tool_call was still running when the runtime closed/,
    );
  });

  it('is idempotent: a second call returns the same promise and runs nothing again', async () => {
    let runs = 0;
    const { runtime } = await runtimeOf([ext('counter', (h) => h.onClose(() => void runs++))]);
    const first = runtime.close();
    expect(runtime.close()).toBe(first);
    await first;
    await runtime.close();
    expect(runs).toBe(1);
  });

  it('refuses a new turn once closed, and ignores events', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('guard', (h) => h.on('intercept_tool_call', () => block('no'))),
      ext('watcher', (h) => h.observe('*', (p) => void seen.push(p.event))),
    ]);
    expect((await inTurn(runtime, (turn) => turn.interceptToolCall(write()))).blocked).toBe(true);
    // The turn reported its decision; nothing after the close is.
    expect(seen).toEqual(['hook_decision']);
    await runtime.close();
    await expect(inTurn(runtime, () => 'ran')).rejects.toThrow(
      /runtime was closed.*load a new runtime/,
    );
    runtime.emit('hook_decision', { hook: 'intercept_tool_call' });
    expect(runtime.hasHook('hook_decision')).toBe(false);
    expect(seen).toEqual(['hook_decision']);
  });

  it('does not accept onClose after setup, or a closer that is not a function', async () => {
    let api: Parameters<Parameters<typeof ext>[1]>[0] | undefined;
    const { runtime } = await runtimeOf([
      ext('late', (h) => {
        api = h;
      }),
      ext('bad', (h) => h.onClose('nope' as never)),
    ]);
    expect(() => api?.onClose(() => {})).toThrow(/after setup finished/);
    expect(runtime.extensions.find((e) => e.name === 'bad')).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/onClose.*must be a function/),
    });
  });
});
