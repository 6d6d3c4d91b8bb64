import { describeError } from './errors.js';

/** Deeper than this is refused: no tool argument or metadata needs it, and a cycle is caught sooner. */
const MAX_DEPTH = 100;
/** Values visited per copy at most; a value that reuses one object many times is counted per use. */
const MAX_VALUES = 1_000_000;
/** Key path segments shown in an error, at most. */
const MAX_PATH_SHOWN = 12;

/**
 * What a handler result carries across to a host (a rewrite's value, metadata) must be JSON data:
 * plain objects (prototype `Object.prototype` or `null`), arrays, strings, finite numbers,
 * booleans and `null`. The bridge and the command hooks send it as JSON, and an in-process host
 * must see what they would see, so nothing is changed quietly on the way:
 *
 * - refused, naming the key path: a BigInt, a function, a symbol (as a value or as a key),
 *   `NaN` and `±Infinity`, `undefined` (or a hole) inside an array, a cycle, and every object
 *   that is not a plain object or an array (a Date, Map, Set, RegExp, Buffer, class instance…);
 * - left out, as `JSON.stringify` leaves it out: a key whose value is `undefined` (so
 *   `{ ...args, mode: undefined }` means "without mode" in every host);
 * - read once: each property is read exactly once (getters included), and what was read is what
 *   is checked and what the host gets.
 */
export type JsonDataCopy = { readonly ok: true; readonly value: unknown } | NotJsonData;

export interface NotJsonData {
  readonly ok: false;
  /** `<root><path>: <what is wrong>`, e.g. `value.opts.when: a Date is not JSON data`. */
  readonly reason: string;
}

/**
 * A deep, frozen copy of `value` if it is JSON data, or why not. Never throws: a getter or a
 * proxy trap that throws is reported as the value at that path that "cannot be read". `root`
 * names the value in the reason (`value`, `metadata`).
 */
export function jsonDataCopy(value: unknown, root: string): JsonDataCopy {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return { ok: true, value };
  }
  const walk = new Walk();
  try {
    return { ok: true, value: walk.copy(value, 0) };
  } catch (error) {
    const problem = walk.problem ?? `cannot be read (threw ${describeError(error)})`;
    return { ok: false, reason: `${formatPath(root, walk.keys)}: ${problem}` };
  }
}

/** Thrown inside a walk once `problem` is set; the walk's caller turns it into a reason. */
const STOP = Symbol('not JSON data');

/**
 * One copy in progress. `keys` is the path from the root to the value being copied; on a throw it
 * is left as it was, so it names where the walk stopped.
 */
class Walk {
  readonly keys: Array<string | number> = [];
  readonly ancestors: object[] = [];
  problem: string | undefined = undefined;
  visited = 0;

  copy(value: unknown, depth: number): unknown {
    if (++this.visited > MAX_VALUES) {
      return this.refuse(`holds more than ${MAX_VALUES} values (a value used twice counts twice)`);
    }
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : this.refuse(`${value} is not JSON data`);
      case 'undefined':
        return this.refuse('undefined is not JSON data');
      case 'bigint':
      case 'symbol':
      case 'function':
        return this.refuse(`a ${typeof value} is not JSON data`);
    }
    if (value === null) return null;
    const object = value as object;
    if (this.ancestors.includes(object)) return this.refuse('a cycle is not JSON data');
    if (depth >= MAX_DEPTH) {
      return this.refuse(`is nested more than ${MAX_DEPTH} levels deep`);
    }
    this.ancestors.push(object);
    const copy = Array.isArray(object)
      ? this.copyArray(object, depth)
      : this.copyObject(object as Record<string, unknown>, depth);
    this.ancestors.pop();
    return Object.freeze(copy);
  }

  private copyArray(array: readonly unknown[], depth: number): unknown[] {
    const length = array.length;
    const copy = new Array(length);
    for (let i = 0; i < length; i++) {
      this.keys.push(i);
      copy[i] = this.copy(array[i], depth + 1);
      this.keys.pop();
    }
    return copy;
  }

  private copyObject(object: Record<string, unknown>, depth: number): Record<string, unknown> {
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      return this.refuse(`${kindOf(proto)} is not JSON data`);
    }
    const symbols = Object.getOwnPropertySymbols(object);
    if (symbols.length > 0) {
      return this.refuse(`a symbol key (${String(symbols[0])}) is not JSON data`);
    }
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      this.keys.push(key);
      const item = object[key];
      if (item !== undefined) {
        const copied = this.copy(item, depth + 1);
        // `copy[key] =` would set the copy's prototype for a key named __proto__.
        if (key === '__proto__') {
          Object.defineProperty(copy, key, {
            value: copied,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          copy[key] = copied;
        }
      }
      this.keys.pop();
    }
    return copy;
  }

  private refuse(problem: string): never {
    this.problem = problem;
    throw STOP;
  }
}

/** "a Date", "an ArrayBuffer", "a Point": what a non-plain object is, by its constructor's name. */
function kindOf(proto: object): string {
  let name: unknown;
  try {
    name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    name = undefined;
  }
  if (typeof name !== 'string' || name === '') return 'an object that is not a plain object';
  return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `value.opts.when`, `value.list[1]`, `metadata["a b"]`; a long path is cut in the middle. */
function formatPath(root: string, keys: ReadonlyArray<string | number>): string {
  if (keys.length <= MAX_PATH_SHOWN) return root + keys.map(segment).join('');
  const head = keys
    .slice(0, MAX_PATH_SHOWN - 1)
    .map(segment)
    .join('');
  return `${root}${head}…${segment(keys[keys.length - 1] as string | number)}`;
}

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
