import { block, type HookName, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it, vi } from 'vitest';
import { blockedOutcome, ext, inTurn, runtimeOf, write } from '../support/helpers.js';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const cyclic = () => {
  const node: Record<string, unknown> = { name: 'a' };
  node.self = { parent: node };
  return node;
};

/** Values that are not JSON data, each with the key path its error names and what it says. */
const notData: Array<[string, () => unknown, string, string]> = [
  ['a Date', () => ({ opts: { when: new Date(0) } }), '.opts.when', 'a Date is not JSON data'],
  ['a BigInt', () => ({ size: 10n }), '.size', 'a bigint is not JSON data'],
  ['a function', () => ({ run: () => 1 }), '.run', 'a function is not JSON data'],
  ['a Map', () => ({ list: [1, new Map()] }), '.list[1]', 'a Map is not JSON data'],
  ['a Set', () => ({ tags: new Set(['a']) }), '.tags', 'a Set is not JSON data'],
  ['a class instance', () => ({ at: new Point(1, 2) }), '.at', 'a Point is not JSON data'],
  ['a symbol', () => ({ kind: Symbol('k') }), '.kind', 'a symbol is not JSON data'],
  ['NaN', () => ({ n: Number.NaN }), '.n', 'NaN is not JSON data'],
  ['Infinity', () => ({ deep: { n: -Infinity } }), '.deep.n', '-Infinity is not JSON data'],
  ['undefined in an array', () => ({ xs: [1, undefined] }), '.xs[1]', 'undefined is not JSON data'],
  // biome-ignore lint/suspicious/noSparseArray: a hole is one of the cases
  ['a hole in an array', () => ({ xs: [1, , 3] }), '.xs[1]', 'undefined is not JSON data'],
  ['a cycle', cyclic, '.self.parent', 'a cycle is not JSON data'],
  ['an odd key', () => ({ 'a b': { c: new Date(0) } }), '["a b"].c', 'a Date is not JSON data'],
  [
    'a getter that throws',
    () => ({
      get broken() {
        throw new Error('getter');
      },
    }),
    '.broken',
    'cannot be read (threw Error: getter)',
  ],
];

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

async function runHook(hook: HookName, result: () => unknown, onError?: 'pass' | 'block') {
  const after = vi.fn();
  const { runtime, logger } = await runtimeOf([
    ext('handler', (h) =>
      h.on(hook, result as never, { priority: 1, ...(onError ? { onError } : {}) }),
    ),
    ext('after', (h) => h.on(hook, after, { priority: 2 })),
  ]);
  const outcome = await inTurn(runtime, (t) =>
    hook === 'intercept_tool_call'
      ? t.interceptToolCall(write())
      : hook === 'before_llm_call'
        ? t.beforeLlmCall({ systemPrompt: 's', messages: [] })
        : t.transformUserInput('m'),
  );
  return { outcome, after, logger };
}

describe('results carry JSON data', () => {
  for (const [kind, make, path, error] of notData) {
    it(`a tool-call rewrite holding ${kind} is a handler error naming the key path (blocked)`, async () => {
      const { outcome, after } = await runHook('intercept_tool_call', () =>
        rewrite(make() as Record<string, unknown>),
      );
      expect(outcome).toMatchObject({ blocked: true, blockedBy: 'handler', changed: false });
      expect(blockedOutcome(outcome).message).toContain(`value${path}: ${error}`);
      expect(after).not.toHaveBeenCalled();
    });

    it(`metadata holding ${kind} on a pass is a handler error naming the key path`, async () => {
      const { outcome } = await runHook(
        'transform_user_input',
        () => pass(make() as Record<string, unknown>),
        'pass',
      );
      expect(outcome.blocked).toBe(false);
      expect(outcome.metadata).toEqual({});
      expect(outcome.trace[0]?.action).toBe('error');
      expect(outcome.trace[0]?.error).toContain(`metadata${path}: ${error}`);
    });
  }

  it('a value nested deeper than 100 levels is refused with the depth', async () => {
    const { outcome } = await runHook('intercept_tool_call', () => rewrite(deep(150)));
    expect(outcome.blocked).toBe(true);
    expect(blockedOutcome(outcome).message).toMatch(/nested more than 100 levels/);
  });

  it('a key whose value is undefined, a symbol key and a hidden property are left out, as JSON leaves them out', async () => {
    const value: Record<string, unknown> = { path: 'b.ts', mode: undefined, [Symbol('s')]: 1 };
    Object.defineProperty(value, 'hidden', { value: new Date(0), enumerable: false });
    const { outcome } = await runHook('intercept_tool_call', () =>
      rewrite(value, { note: undefined, n: 1 }),
    );
    expect(outcome).toMatchObject({ blocked: false, changed: true });
    expect(outcome.value).toStrictEqual({ path: 'b.ts' });
    expect(Object.keys(outcome.value)).toEqual(['path']);
    expect(outcome.metadata).toStrictEqual({ n: 1 });
  });

  it('JSON data passes unchanged, with shared (not cyclic) references copied', async () => {
    const shared = { a: [1, 'two', true, null, -0.5] };
    const value = { x: shared, y: shared, nested: { list: [{ k: 'v' }] } };
    const { outcome } = await runHook('intercept_tool_call', () => rewrite(value, { by: shared }));
    expect(outcome.value).toEqual(value);
    expect(outcome.metadata).toEqual({ by: shared });
    expect(Object.isFrozen(outcome.value)).toBe(true);
    expect(Object.isFrozen(outcome.metadata.by)).toBe(true);
    expect(JSON.parse(JSON.stringify(outcome.value))).toEqual(outcome.value);
  });

  it('a before_llm_call rewrite whose messages hold a Date is a handler error', async () => {
    const { outcome } = await runHook('before_llm_call', () =>
      rewrite({ messages: [{ role: 'user', content: 'x', sentAt: new Date(0) }] }),
    );
    expect(outcome.changed).toBe(false);
    expect(outcome.trace[0]?.error).toContain('value.messages[0].sentAt: a Date is not JSON data');
  });

  it('reads each field of a result once: a value that changes between reads cannot slip past validation', async () => {
    let reads = 0;
    const { outcome } = await runHook('intercept_tool_call', () => ({
      action: 'rewrite',
      get value() {
        reads++;
        return reads === 1 ? 'not an object' : { path: 'ok' };
      },
    }));
    expect(reads).toBe(1);
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'handler' });
    expect(blockedOutcome(outcome).message).toMatch(/plain object/);
  });

  it('reads a nested getter of a rewrite value once', async () => {
    let reads = 0;
    const { outcome } = await runHook('intercept_tool_call', () =>
      rewrite({
        get path() {
          reads++;
          return reads === 1 ? 'first.ts' : new Date(0);
        },
      }),
    );
    expect(reads).toBe(1);
    expect(outcome.value).toEqual({ path: 'first.ts' });
  });
});

describe('a block always stays a block', () => {
  for (const onError of ['pass', 'block'] as const) {
    it(`a block with metadata that is not JSON data is still a block (onError: ${onError}), its metadata dropped and the reason recorded`, async () => {
      for (const hook of ['intercept_tool_call', 'transform_user_input'] as const) {
        const { outcome, after, logger } = await runHook(
          hook,
          () => block('no, and here is why', { at: new Date(0), ok: 1 }),
          onError,
        );
        expect(outcome).toMatchObject({
          blocked: true,
          blockedBy: 'handler',
          message: 'no, and here is why',
        });
        expect(outcome.metadata).toEqual({});
        expect(outcome.trace[0]).toMatchObject({ action: 'block' });
        expect(outcome.trace[0]?.error).toContain('metadata.at: a Date is not JSON data');
        expect(after).not.toHaveBeenCalled();
        expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
          expect.stringMatching(/metadata\.at: a Date is not JSON data.*dropped/),
        ]);
        expect(JSON.parse(JSON.stringify(outcome))).toEqual(outcome);
      }
    });
  }

  it('metadata of earlier handlers stays when a later block brings bad metadata', async () => {
    const { runtime } = await runtimeOf([
      ext('tagger', (h) =>
        h.on('intercept_tool_call', () => pass({ tag: 'kept' }), { priority: 1 }),
      ),
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => block('stop', { n: 1n }), {
          priority: 2,
          onError: 'pass',
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard', message: 'stop' });
    expect(outcome.metadata).toEqual({ tag: 'kept' });
  });
});
