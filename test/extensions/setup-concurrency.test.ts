import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { blockedOutcome } from '../support/helpers.js';

const quiet = { logger: memoryLogger() };

/**
 * What the extensions of one test share through `globalThis` (they load in this process): each
 * setup can wait for another's to finish, so setups finish in an order the test chooses.
 */
interface Rendezvous {
  finishedOrder: string[];
  observed: string[];
  finished(name: string): Promise<void>;
  finish(name: string): void;
}

const KEY = '__hermesSetupRendezvous';

function rendezvous(): Rendezvous {
  const done = new Set<string>();
  const waiters = new Map<string, () => void>();
  const shared: Rendezvous = {
    finishedOrder: [],
    observed: [],
    finished: (name) =>
      done.has(name) ? Promise.resolve() : new Promise((r) => waiters.set(name, r)),
    finish: (name) => {
      done.add(name);
      shared.finishedOrder.push(name);
      waiters.get(name)?.();
    },
  };
  (globalThis as Record<string, unknown>)[KEY] = shared;
  return shared;
}

afterEach(() => {
  delete (globalThis as Record<string, unknown>)[KEY];
});

/**
 * An extension whose setup first waits for `waitFor`'s setup to finish, then registers one
 * rewriting tool handler per priority (each appends `name@priority#index`) and an observer.
 */
function ordered(name: string, waitFor: string | undefined, priorities: number[]): string {
  const handlers = priorities
    .map(
      (priority, i) =>
        `hermes.on('intercept_tool_call', (e) => ({ action: 'rewrite', value: { order: [...((e.toolArgs.order as string[]) ?? []), '${name}@${priority}#${i}'] } }), { priority: ${priority} });`,
    )
    .join('\n    ');
  return `import { defineExtension } from 'hermes-extensions';
const shared = (globalThis as any)['${KEY}'];
export default defineExtension({
  name: '${name}',
  async setup(hermes) {
    ${waitFor ? `await shared.finished('${waitFor}');` : ''}
    ${handlers}
    hermes.observe('on_session_start', () => { shared.observed.push('${name}'); });
    shared.finish('${name}');
  },
});
`;
}

const hanging = (name: string) => `import { defineExtension } from 'hermes-extensions';
export default defineExtension({ name: '${name}', setup: () => new Promise(() => {}) });
`;

describe('extension setups', () => {
  it('run at the same time, and the chain keeps priority, then load order, then registration order', async () => {
    const shared = rendezvous();
    // a waits for b, b for c: run one after another, a's setup would wait for one not yet started.
    const home = tree({
      'extensions/a.ts': ordered('a', 'b', [50, 100]),
      'extensions/b.ts': ordered('b', 'c', [100, 50]),
      'extensions/c.ts': ordered('c', undefined, [100, 100]),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), setupTimeoutMs: 5_000, ...quiet });
    expect(runtime.extensions.map((e) => [e.name, e.status, e.reason])).toEqual([
      ['a', 'enabled', undefined],
      ['b', 'enabled', undefined],
      ['c', 'enabled', undefined],
    ]);
    expect(shared.finishedOrder).toEqual(['c', 'b', 'a']);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: {} }),
    );
    expect((outcome.value as { order: string[] }).order).toEqual([
      'a@50#0',
      'b@50#1',
      'a@100#1',
      'b@100#0',
      'c@100#0',
      'c@100#1',
    ]);
    // Observers too run in load order, whoever finished setting up first.
    runtime.emit('on_session_start', {});
    expect(shared.observed).toEqual(['a', 'b', 'c']);
  }, 30_000);

  it('that hang cost one timeout together: each is an error naming the limit, the rest run', async () => {
    rendezvous();
    const home = tree({
      'extensions/hang-1.ts': hanging('hang-1'),
      'extensions/hang-2.ts': hanging('hang-2'),
      'extensions/hang-3.ts': hanging('hang-3'),
      'extensions/healthy.ts': ordered('healthy', undefined, [100]),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), setupTimeoutMs: 300, ...quiet });
    expect(runtime.extensions.map((e) => [e.name, e.status, e.reason])).toEqual([
      ['hang-1', 'error', 'setup did not finish within 300 ms'],
      ['hang-2', 'error', 'setup did not finish within 300 ms'],
      ['hang-3', 'error', 'setup did not finish within 300 ms'],
      ['healthy', 'enabled', undefined],
    ]);
    // A guard that never finished setting up is a load failure: tool calls are refused.
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: {} }),
    );
    expect(outcome.blocked).toBe(true);
    expect(blockedOutcome(outcome).message).toMatch(/hang-1.*setup did not finish within 300 ms/);
  }, 30_000);

  it('a module that never finishes loading (a top-level await) is an error after the same limit', async () => {
    rendezvous();
    const neverLoads = `await new Promise(() => {});\nexport default { name: 'x', setup() {} };\n`;
    const home = tree({
      'extensions/stuck-js.mjs': neverLoads,
      'extensions/stuck-ts.ts': neverLoads,
      'extensions/healthy.ts': ordered('healthy', undefined, [100]),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), setupTimeoutMs: 300, ...quiet });
    const byName = Object.fromEntries(runtime.extensions.map((e) => [e.name, e]));
    expect(byName.healthy?.status).toBe('enabled');
    for (const name of ['stuck-js', 'stuck-ts']) {
      expect(byName[name]?.status).toBe('error');
      expect(byName[name]?.reason).toMatch(/did not finish loading within 300 ms/);
    }
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: {} }),
    );
    expect(outcome.blocked).toBe(true);
    expect(blockedOutcome(outcome).message).toMatch(/stuck-js/);
  }, 30_000);
});
