import { describe, expect, it } from 'vitest';
import { jsonDataCopy } from '../../src/chain/json-data.js';

/** The copy, or the reason it was refused. */
function copyOf(value: unknown): unknown {
  const copy = jsonDataCopy(value, 'state');
  return copy.ok ? copy.value : copy.reason;
}

describe('JSON data (handler results, turn state)', () => {
  it('copies JSON data unchanged, leaving out keys whose value is undefined', () => {
    const shared = { read: ['a.ts'] };
    const value = {
      plan: null,
      count: 3,
      ok: true,
      items: [1, 'two', { three: [3] }],
      twice: [shared, shared],
      gone: undefined,
      bare: Object.assign(Object.create(null), { x: 1 }),
    };
    const copy = copyOf(value);
    expect(copy).toEqual({ ...value, gone: undefined });
    expect(JSON.parse(JSON.stringify(copy))).toEqual(copy);
  });

  class Plan {}
  it.each([
    [{ at: new Date(0) }, 'state.at: a Date is not JSON data'],
    [{ seen: new Map() }, 'state.seen: a Map is not JSON data'],
    [{ seen: new Set() }, 'state.seen: a Set is not JSON data'],
    [{ plan: new Plan() }, 'state.plan: a Plan is not JSON data'],
    [{ total: 1n }, 'state.total: a bigint is not JSON data'],
    [{ check: () => true }, 'state.check: a function is not JSON data'],
    [{ tag: Symbol('t') }, 'state.tag: a symbol is not JSON data'],
    [{ ratio: Number.NaN }, 'state.ratio: NaN is not JSON data'],
    [{ list: [1, undefined] }, 'state.list[1]: undefined is not JSON data'],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    [{ list: [1, , 3] }, 'state.list[1]: undefined is not JSON data'],
    [
      { 'my-ext': { deep: [{ at: new Date(0) }] } },
      'state["my-ext"].deep[0].at: a Date is not JSON data',
    ],
  ])('refuses %o: %s', (value, problem) => {
    expect(copyOf(value)).toBe(problem);
  });

  it('refuses a cycle, naming where it closes', () => {
    const node: Record<string, unknown> = { name: 'a' };
    node.next = { back: node };
    expect(copyOf({ node })).toBe('state.node.next.back: a cycle is not JSON data');
  });

  it('keeps a key named __proto__ a key, and reads a getter once', () => {
    let reads = 0;
    const value = JSON.parse('{"__proto__":{"polluted":true}}');
    Object.defineProperty(value, 'counted', {
      enumerable: true,
      get: () => ++reads,
    });
    const copy = copyOf(value) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'counted']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"counted":1}');
    expect(reads).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
