import { ask, block, P, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

/**
 * The runner's plain run (src/chain/run-chain.ts) takes a chain as far as its handlers pass, in
 * time and without `when`, then hands it over to `ChainRun` (src/chain/chain-run.ts). Whatever
 * the handler where it hands over does, after two that passed, the chain must come out as if one
 * runner had run it all: every handler called once at most, the trace in order, the value the
 * later handlers see the one the earlier ones left.
 */
const read = { toolName: 'read', toolArgs: { path: 'src/a.ts' } };

/** Waits on the CPU: a synchronous handler that runs past its `timeoutMs`. */
function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

interface Middle {
  /** The third handler of four, after two plain passes. */
  fn: (event: { toolArgs: Readonly<Record<string, unknown>> }) => unknown;
  options?: Record<string, unknown>;
  /** The trace, `extension:action` in chain order. */
  trace: string[];
  blocked: boolean;
  /** Whether the fourth handler runs, and the path it sees when it does. */
  lastSees?: string;
}

const middles: Record<string, Middle> = {
  'throws, failing closed': {
    fn: () => {
      throw new Error('broken guard');
    },
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'throws, failing open': {
    fn: () => {
      throw new Error('broken helper');
    },
    options: { onError: 'pass' },
    trace: ['first:pass', 'second:pass', 'middle:error', 'last:pass'],
    blocked: false,
    lastSees: 'src/a.ts',
  },
  rewrites: {
    fn: (event) => rewrite({ ...event.toolArgs, path: 'src/b.ts' }),
    trace: ['first:pass', 'second:pass', 'middle:rewrite', 'last:pass'],
    blocked: false,
    lastSees: 'src/b.ts',
  },
  blocks: {
    fn: () => block('no'),
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  asks: {
    fn: () => ask('may it?'),
    trace: ['first:pass', 'second:pass', 'middle:ask', 'last:pass'],
    blocked: false,
    lastSees: 'src/a.ts',
  },
  'returns metadata with its pass': {
    fn: () => pass({ metadata: { seen: true } }),
    trace: ['first:pass', 'second:pass', 'middle:pass', 'last:pass'],
    blocked: false,
    lastSees: 'src/a.ts',
  },
  'passes asynchronously': {
    fn: () => Promise.resolve(undefined),
    trace: ['first:pass', 'second:pass', 'middle:pass', 'last:pass'],
    blocked: false,
    lastSees: 'src/a.ts',
  },
  'blocks asynchronously': {
    fn: () => Promise.resolve(block('later no')),
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'returns a result whose `then` cannot be read': {
    fn: () =>
      Object.defineProperty({}, 'then', {
        get() {
          throw new Error('trap');
        },
      }),
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'returns something that is not a result': {
    fn: () => 42,
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'passes, but past its timeoutMs': {
    fn: () => busy(40),
    options: { timeoutMs: 5 },
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'has a `when` that matches, and blocks': {
    fn: () => block('matched'),
    options: { when: { toolArgs: { path: P.string.startsWith('src/') } } },
    trace: ['first:pass', 'second:pass', 'middle:block'],
    blocked: true,
  },
  'has a `when` that does not match': {
    fn: () => block('never'),
    options: { when: { toolArgs: { path: P.string.startsWith('docs/') } } },
    trace: ['first:pass', 'second:pass', 'last:pass'],
    blocked: false,
    lastSees: 'src/a.ts',
  },
};

describe('the plain run hands a chain over where a handler does more than pass', () => {
  for (const [what, middle] of Object.entries(middles)) {
    it(`after two passes, a handler that ${what}`, async () => {
      const calls = [0, 0, 0, 0];
      let lastSaw: unknown;
      const { runtime } = await runtimeOf([
        ext('first', (h) =>
          h.on(
            'intercept_tool_call',
            () => {
              calls[0]++;
            },
            { priority: 1 },
          ),
        ),
        ext('second', (h) =>
          h.on(
            'intercept_tool_call',
            () => {
              calls[1]++;
              return pass();
            },
            { priority: 2 },
          ),
        ),
        ext('middle', (h) =>
          h.on(
            'intercept_tool_call',
            ((event: Parameters<Middle['fn']>[0]) => {
              calls[2]++;
              return middle.fn(event);
            }) as never,
            { priority: 3, ...middle.options } as never,
          ),
        ),
        ext('last', (h) =>
          h.on(
            'intercept_tool_call',
            (event) => {
              calls[3]++;
              lastSaw = event.toolArgs.path;
            },
            { priority: 4 },
          ),
        ),
      ]);
      const outcome = await inTurn(runtime, (t) => t.interceptToolCall(read));
      expect(outcome.blocked).toBe(middle.blocked);
      expect(outcome.trace.map((entry) => `${entry.extension}:${entry.action}`)).toEqual(
        middle.trace,
      );
      const middleRan = middle.trace.some((step) => step.startsWith('middle:'));
      expect(calls).toEqual([1, 1, middleRan ? 1 : 0, middle.lastSees === undefined ? 0 : 1]);
      expect(lastSaw).toBe(middle.lastSees);
      await runtime.close();
    });
  }

  it('a chain past its deadline after two passes ends there, the next handler never called', async () => {
    let thirdCalled = false;
    const { runtime } = await runtimeOf(
      [
        ext('first', (h) => h.on('intercept_tool_call', () => undefined, { priority: 1 })),
        ext('slow', (h) =>
          h.on('intercept_tool_call', () => busy(60), { priority: 2, timeoutMs: 10_000 }),
        ),
        ext('third', (h) =>
          h.on(
            'intercept_tool_call',
            () => {
              thirdCalled = true;
            },
            { priority: 3 },
          ),
        ),
      ],
      { chainTimeoutMs: { intercept_tool_call: 20 } },
    );
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(read));
    expect(outcome.blocked).toBe(true);
    expect(outcome.trace.map((entry) => entry.extension)).toEqual(['first', 'slow']);
    expect(thirdCalled).toBe(false);
    await runtime.close();
  });

  it('a tool that follows the chain step by step is told of every pass, the plain ones too', async () => {
    const steps: string[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) => h.on('intercept_tool_call', () => undefined, { priority: 1 })),
      ext('b', (h) => h.on('intercept_tool_call', () => pass(), { priority: 2 })),
    ]);
    const outcome = await runtime.runTurn(
      { sessionId: 'traced', onTrace: (step) => steps.push(`${step.extension}:${step.action}`) },
      (t) => t.interceptToolCall(read),
    );
    expect(outcome.trace).toHaveLength(2);
    expect(steps).toEqual(['a:pass', 'b:pass']);
    await runtime.close();
  });
});
