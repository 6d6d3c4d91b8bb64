import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { block } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { blockedOutcome, ext, runtimeOf, write } from '../support/helpers.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('async handler timeouts share one watchdog', () => {
  it('times out a short deadline that arrives after a longer one is already waiting', async () => {
    const { runtime } = await runtimeOf([
      ext('patient', (h) =>
        h.on(
          'intercept_tool_call',
          async (e) => {
            if (e.toolName !== 'slow') return undefined;
            await sleep(80);
            return block('patient answered');
          },
          { timeoutMs: 1000 },
        ),
      ),
      ext('hasty', (h) =>
        h.on('transform_user_input', () => new Promise(() => {}), {
          timeoutMs: 20,
          onError: 'block',
        }),
      ),
    ]);
    const started = performance.now();
    const [slow, hasty] = await Promise.all([
      runtime.runTurn({ sessionId: 'a' }, (t) =>
        t.interceptToolCall({ toolName: 'slow', toolArgs: {} }),
      ),
      runtime.runTurn({ sessionId: 'b' }, async (t) => {
        const outcome = await t.transformUserInput('x');
        return { outcome, at: performance.now() - started };
      }),
    ]);
    expect(slow).toMatchObject({ blocked: true, message: 'patient answered' });
    expect(hasty.outcome).toMatchObject({ blocked: true, blockedBy: 'hasty' });
    expect(blockedOutcome(hasty.outcome).message).toMatch(/timed out after 20 ms/);
    // It did not wait for the longer deadline armed before it.
    expect(hasty.at).toBeLessThan(1000);
  });

  it('times out each of many waiting chains, and lets the settled ones be', async () => {
    const { runtime } = await runtimeOf([
      ext('mixed', (h) =>
        h.on(
          'intercept_tool_call',
          // The settled ones settle on the microtask queue, before any timer can fire however
          // busy the machine is.
          (e) =>
            e.toolArgs.hang ? new Promise(() => {}) : Promise.resolve().then(() => undefined),
          { timeoutMs: 30 },
        ),
      ),
    ]);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runtime.runTurn({ sessionId: `s${i}` }, (t) =>
          t.interceptToolCall({ toolName: 'x', toolArgs: { hang: i % 2 === 0 } }),
        ),
      ),
    );
    expect(outcomes.map((o) => o.blocked)).toEqual(
      Array.from({ length: 20 }, (_, i) => i % 2 === 0),
    );
  });

  it('chains async handlers one after another, each awaited once, in order', async () => {
    const order: number[] = [];
    const { runtime } = await runtimeOf(
      Array.from({ length: 5 }, (_, i) =>
        ext(`async-${i}`, (h) =>
          h.on('intercept_tool_call', async () => {
            await sleep(1);
            order.push(i);
          }),
        ),
      ),
    );
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall(write()));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(outcome.trace.map((e) => e.action)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
  });
});

const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe.runIf(existsSync(dist))('the watchdog and the process', () => {
  it('does not keep a host process alive once no handler is waiting', async () => {
    const script = `
      import { createRuntime, defineExtension } from ${JSON.stringify(dist)};
      const ext = defineExtension({ name: 'quick', setup(h) { h.on('intercept_tool_call', async () => undefined); } });
      const runtime = await createRuntime({ extensions: [ext] });
      const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName: 'w', toolArgs: {} }));
      const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      console.log(JSON.stringify({ blocked: outcome.blocked, timers }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
    ]);
    // The default timeout is 5000 ms: a timer left armed after the turn would be listed here.
    expect(JSON.parse(stdout)).toEqual({ blocked: false, timers: 0 });
  });

  it('keeps the process alive while a handler is waiting, so the timeout still decides', async () => {
    const script = `
      import { createRuntime, defineExtension } from ${JSON.stringify(dist)};
      const ext = defineExtension({ name: 'stuck', setup(h) { h.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: 200 }); } });
      const runtime = await createRuntime({ extensions: [ext], logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName: 'w', toolArgs: {} }));
      console.log(JSON.stringify({ blocked: outcome.blocked, blockedBy: outcome.blockedBy }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(JSON.parse(stdout)).toEqual({ blocked: true, blockedBy: 'stuck' });
  });
});
