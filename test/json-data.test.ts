import { describe, expect, it } from 'vitest';
import { copyJsonData, NotJsonDataError } from '../src/host/command-hook/json-data.js';

describe('turn state as JSON data', () => {
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
    const copy = copyJsonData(value, 'state');
    expect(copy).toEqual({ ...value, gone: undefined });
    expect(JSON.parse(JSON.stringify(copy))).toEqual(copy);
  });

  class Plan {}
  it.each([
    [{ at: new Date(0) }, 'state.at is a Date'],
    [{ seen: new Map() }, 'state.seen is a Map'],
    [{ seen: new Set() }, 'state.seen is a Set'],
    [{ plan: new Plan() }, 'state.plan is a Plan'],
    [{ total: 1n }, 'state.total is a bigint'],
    [{ check: () => true }, 'state.check is a function'],
    [{ tag: Symbol('t') }, 'state.tag is a symbol'],
    [{ ratio: Number.NaN }, 'state.ratio is NaN'],
    [{ list: [1, undefined] }, 'state.list[1] is undefined'],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    [{ list: [1, , 3] }, 'state.list[1] is a hole in the array'],
    [{ 'my-ext': { deep: [{ at: new Date(0) }] } }, 'state["my-ext"].deep[0].at is a Date'],
  ])('refuses %o: %s', (value, problem) => {
    expect(() => copyJsonData(value, 'state')).toThrow(new NotJsonDataError(problem));
  });

  it('refuses a cycle, naming where it closes', () => {
    const node: Record<string, unknown> = { name: 'a' };
    node.next = { back: node };
    expect(() => copyJsonData({ node }, 'state')).toThrow('state.node.next.back is a cycle');
  });

  it('keeps a key named __proto__ a key, and reads a getter once', () => {
    let reads = 0;
    const value = JSON.parse('{"__proto__":{"polluted":true}}');
    Object.defineProperty(value, 'counted', {
      enumerable: true,
      get: () => ++reads,
    });
    const copy = copyJsonData(value, 'state') as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'counted']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"counted":1}');
    expect(reads).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
