import { type HandlerOptions, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

/** Each handler appends its label to the message, so the final value spells the order. */
const tag = (label: string) => (event: { userMessage: string }) =>
  rewrite(`${event.userMessage}${label}`);

type Options = HandlerOptions<'transform_user_input'>;

/** An extension with one `transform_user_input` handler that writes `[name]`. */
const one = (name: string, options: Options = {}) =>
  ext(name, (h) => h.on('transform_user_input', tag(`[${name}]`), options));

async function orderOf(extensions: Parameters<typeof runtimeOf>[0]) {
  const { runtime } = await runtimeOf(extensions);
  const outcome = await inTurn(runtime, (t) => t.transformUserInput(''));
  return { order: outcome.value, diagnostics: runtime.diagnostics };
}

/** Every rotation of the list: createRuntime's array order must never decide anything. */
function rotations<T>(list: readonly T[]): T[][] {
  return list.map((_, i) => [...list.slice(i), ...list.slice(0, i)]);
}

describe('before / after by extension name', () => {
  it('runs a handler before the extension it names, against priority', async () => {
    const { order, diagnostics } = await orderOf([
      one('a', { priority: 10 }),
      one('b', { priority: 50, before: 'a' }),
      one('c', { priority: 30 }),
    ]);
    // b moves just before a; c keeps its place by priority after a.
    expect(order).toBe('[b][a][c]');
    expect(diagnostics).toEqual([]);
  });

  it('runs a handler after every handler of the extensions it names', async () => {
    const { order } = await orderOf([
      ext('a', (h) => {
        h.on('transform_user_input', tag('[a1]'), { priority: 50 });
        h.on('transform_user_input', tag('[a2]'), { priority: 90 });
      }),
      one('b', { priority: 1, after: ['a'] }),
      one('c', { priority: 60 }),
    ]);
    expect(order).toBe('[a1][c][a2][b]');
  });

  it('moves the handler that names, not the one named: others keep their places', async () => {
    const others = ['o1', 'o2', 'o3'].map((name) => one(name, { priority: 50 }));
    // `before`: the guard that runs first still runs before o1..o3; only `norm` moves up.
    expect(
      (await orderOf([one('guard', { priority: 0 }), ...others, one('norm', { before: 'guard' })]))
        .order,
    ).toBe('[norm][guard][o1][o2][o3]');
    // `after`: the auditor moves down behind the redactor; o1..o3 keep running before it.
    expect(
      (
        await orderOf([
          one('audit', { priority: 0, after: 'redact' }),
          ...others,
          one('redact', { priority: 900 }),
        ])
      ).order,
    ).toBe('[o1][o2][o3][redact][audit]');
  });

  it('changes the priority order as little as needed: constraints already met move nothing', async () => {
    const { order } = await orderOf([
      one('a', { priority: 1, before: 'c' }),
      one('b', { priority: 2 }),
      one('c', { priority: 3, after: 'a' }),
    ]);
    expect(order).toBe('[a][b][c]');
  });

  it('follows chains of constraints', async () => {
    // d after c, c after b, b after a: the reverse of priority.
    const { order, diagnostics } = await orderOf([
      one('a', { priority: 40 }),
      one('b', { priority: 30, after: 'a' }),
      one('c', { priority: 20, after: 'b' }),
      one('d', { priority: 10, after: 'c' }),
      one('e', { priority: 25 }),
    ]);
    expect(order).toBe('[e][a][b][c][d]');
    expect(diagnostics).toEqual([]);
  });

  it('mixes before and after and several names', async () => {
    const { order } = await orderOf([
      one('a', { priority: 1 }),
      one('b', { priority: 2 }),
      one('x', { priority: 0, after: ['a', 'b'], before: 'z' }),
      one('z', { priority: 0 }),
    ]);
    expect(order).toBe('[a][b][x][z]');
  });

  it('breaks ties as before: load order (by name), then registration order', async () => {
    const { order } = await orderOf([
      one('m', { before: 'a' }),
      one('k', { before: 'a' }),
      ext('a', (h) => {
        h.on('transform_user_input', tag('[a1]'));
        h.on('transform_user_input', tag('[a2]'));
      }),
      one('z'),
    ]);
    expect(order).toBe('[k][m][a1][a2][z]');
  });

  it('gives the same order and diagnostics whatever the array order', async () => {
    const list = [
      one('a', { priority: 5, after: 'd' }),
      one('b', { priority: 5, before: 'a' }),
      one('c', { priority: 1, after: 'b' }),
      one('d', { priority: 9 }),
      one('e', { priority: 5, before: 'nope' }),
      one('f', { before: 'g' }),
      one('g', { before: 'f' }),
    ];
    const results = await Promise.all(rotations(list).map(orderOf));
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]?.order).toBe('[b][c][e][d][a][f][g]');
  });

  it('orders each hook on its own: a constraint on one hook does not move another', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) => {
        h.on('transform_user_input', () => void seen.push('a-input'), { priority: 1 });
        h.on('intercept_tool_call', () => void seen.push('a-tool'), { priority: 1 });
      }),
      ext('b', (h) => {
        h.on('transform_user_input', () => void seen.push('b-input'), { priority: 2 });
        h.on('intercept_tool_call', () => void seen.push('b-tool'), { priority: 2, before: 'a' });
      }),
    ]);
    await inTurn(runtime, async (t) => {
      await t.transformUserInput('x');
      await t.interceptToolCall(write());
    });
    expect(seen).toEqual(['a-input', 'b-input', 'b-tool', 'a-tool']);
    expect(runtime.diagnostics).toEqual([]);
  });

  it('keeps the order for a tool-filtered sub-chain', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('a', (h) =>
        h.on('intercept_tool_call', () => void seen.push('a'), { priority: 1, tools: 'write' }),
      ),
      ext('b', (h) =>
        h.on('intercept_tool_call', () => void seen.push('b'), { priority: 2, before: 'a' }),
      ),
    ]);
    await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(seen).toEqual(['b', 'a']);
  });
});

describe('cycles', () => {
  it('reports a cycle of two with its extensions and hook, and falls back to priority', async () => {
    for (const list of rotations([
      one('a', { priority: 2, before: 'b' }),
      one('b', { priority: 1, before: 'a' }),
      one('c', { priority: 0 }),
    ])) {
      const { order, diagnostics } = await orderOf(list);
      expect(order).toBe('[c][b][a]');
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({ code: 'ORDER_CYCLE', severity: 'warning' });
      const message = diagnostics[0]?.message ?? '';
      expect(message).toMatch(/transform_user_input/);
      expect(message).toMatch(/"b" before "a"/);
      expect(message).toMatch(/"a" before "b"/);
      expect(message).toMatch(/ignored/);
    }
  });

  it('reports a cycle of three, and keeps the constraints outside it', async () => {
    const list = [
      one('a', { priority: 3, after: 'c' }),
      one('b', { priority: 2, after: 'a' }),
      one('c', { priority: 1, after: 'b' }),
      // outside the cycle: d must still run after a.
      one('d', { priority: 0, after: 'a' }),
    ];
    for (const rotated of rotations(list)) {
      const { order, diagnostics } = await orderOf(rotated);
      expect(order).toBe('[c][b][a][d]');
      expect(diagnostics.map((d) => d.code)).toEqual(['ORDER_CYCLE']);
      const message = diagnostics[0]?.message ?? '';
      for (const name of ['a', 'b', 'c']) expect(message).toContain(`"${name}"`);
      expect(message).not.toContain('"d"');
    }
  });

  it('reports an extension that names itself, and ignores that constraint', async () => {
    const { order, diagnostics } = await orderOf([
      ext('a', (h) => {
        h.on('transform_user_input', tag('[a1]'), { priority: 1 });
        h.on('transform_user_input', tag('[a2]'), { priority: 2, before: 'a' });
      }),
      one('b', { priority: 0 }),
    ]);
    expect(order).toBe('[b][a1][a2]');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'ORDER_CYCLE', extension: 'a' });
    expect(diagnostics[0]?.message).toMatch(/names itself/);
  });

  it('treats before and after of the same name as a cycle, never a crash', async () => {
    const { order, diagnostics } = await orderOf([
      one('a', { priority: 1 }),
      one('b', { priority: 2, before: 'a', after: 'a' }),
    ]);
    expect(order).toBe('[a][b]');
    expect(diagnostics.map((d) => d.code)).toEqual(['ORDER_CYCLE']);
  });
});

describe('names that order nothing', () => {
  it('says when a name is not loaded at all, with a did-you-mean, and runs by priority', async () => {
    const { order, diagnostics } = await orderOf([
      one('redactor', { priority: 2 }),
      one('audit', { priority: 1, after: 'redacter' }),
    ]);
    expect(order).toBe('[audit][redactor]');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'ORDER_NOT_FOUND',
      severity: 'warning',
      extension: 'audit',
    });
    expect(diagnostics[0]?.message).toMatch(/"redacter"/);
    expect(diagnostics[0]?.message).toMatch(/did you mean "redactor"/);
  });

  it('is only informative about a name like nothing loaded (an optional extension)', async () => {
    const { diagnostics } = await orderOf([one('audit', { after: 'secret-scanner' })]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'ORDER_NOT_FOUND', severity: 'info' });
  });

  it('says nothing about a loaded extension without a handler on that hook, or one that failed', async () => {
    const { order, diagnostics } = await orderOf([
      ext('tools-only', (h) => h.on('intercept_tool_call', () => undefined)),
      ext('broken', () => {
        throw new Error('boom');
      }),
      one('a', { before: ['tools-only', 'broken'] }),
    ]);
    expect(order).toBe('[a]');
    expect(diagnostics.map((d) => d.code)).toEqual(['SETUP_FAILED']);
  });

  it('cannot move a handler across phases: a mutator after a validator is reported', async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => void seen.push('guard'), {
          phase: 'validate',
          priority: 0,
        }),
      ),
      ext('fixer', (h) =>
        h.on('intercept_tool_call', () => void seen.push('fixer'), { after: 'guard' }),
      ),
      ext('early', (h) =>
        // Already true: a mutator runs before every validator. Nothing to say.
        h.on('intercept_tool_call', () => void seen.push('early'), { before: 'guard' }),
      ),
    ]);
    await inTurn(runtime, (t) => t.interceptToolCall(write()));
    expect(seen).toEqual(['early', 'fixer', 'guard']);
    expect(runtime.diagnostics.map((d) => [d.code, d.extension])).toEqual([
      ['ORDER_ACROSS_PHASES', 'fixer'],
    ]);
    expect(runtime.diagnostics[0]?.message).toMatch(/validat/);
  });

  it('cannot move a validator before a mutator either', async () => {
    const { runtime } = await runtimeOf([
      ext('rewriter', (h) => h.on('intercept_tool_call', () => undefined)),
      ext('check', (h) =>
        h.on('intercept_tool_call', () => undefined, { phase: 'validate', before: 'rewriter' }),
      ),
    ]);
    expect(runtime.diagnostics.map((d) => [d.code, d.extension])).toEqual([
      ['ORDER_ACROSS_PHASES', 'check'],
    ]);
  });
});

describe('registration', () => {
  it('refuses a name that is not a non-empty string', async () => {
    for (const bad of [42, '', ['ok', 7], { name: 'a' }]) {
      const { runtime } = await runtimeOf([
        ext('a', (h) =>
          h.on('transform_user_input', () => undefined, { before: bad } as unknown as Options),
        ),
      ]);
      const [info] = runtime.extensions;
      expect(info?.status).toBe('error');
      expect(info?.code).toBe('INVALID_REGISTRATION');
      expect(info?.reason).toMatch(/before/);
    }
  });

  it('lists each handler’s before and after in runtime.extensions', async () => {
    const { runtime } = await runtimeOf([one('a'), one('b', { before: 'a', after: ['c'] })]);
    expect(runtime.extensions.find((e) => e.name === 'b')?.hooks).toEqual([
      { hook: 'transform_user_input', priority: 100, before: ['a'], after: ['c'] },
    ]);
    expect(runtime.extensions.find((e) => e.name === 'a')?.hooks).toEqual([
      { hook: 'transform_user_input', priority: 100 },
    ]);
  });
});
