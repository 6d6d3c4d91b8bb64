import { setOwn } from '../hooks/frozen.js';
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
 * - refused, naming the key path: a BigInt, a function, a symbol, `NaN` and `±Infinity`,
 *   `undefined` (or a hole) inside an array, a cycle, and every object that is not a plain object
 *   or an array (a Date, Map, Set, RegExp, Buffer, class instance…);
 * - left out, as `JSON.stringify` and `Object.keys` leave them out: a key whose value is
 *   `undefined` (so `{ ...args, mode: undefined }` means "without mode" in every host), symbol
 *   keys and non-enumerable properties (they are not data: no host ever sees them);
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
 * Why a copy stopped. Thrown from where it stopped; each level it passes on the way out adds its
 * key, so the path costs nothing unless a copy fails.
 */
class Stop {
  /** The key path, innermost key first. */
  readonly keys: Array<string | number> = [];
  constructor(readonly problem: string) {}
}

/** The last Stop made: what a catch compares a thrown value with (`instanceof` may throw). */
let lastStop: Stop | undefined;
/** The objects being copied, outermost first: a cycle is an object met again among them. */
const ancestors: object[] = [];
let visited = 0;

/**
 * A deep, frozen copy of `value` if it is JSON data, or why not. Never throws: a getter or a
 * proxy trap that throws is reported as the value at that path that "cannot be read". `root`
 * names the value in the reason (`value`, `metadata`). `freezeRoot: false` leaves the outermost
 * object or array unfrozen, for a caller that only spreads it into a frozen object of its own.
 */
export function jsonDataCopy(value: unknown, root: string, freezeRoot = true): JsonDataCopy {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return { ok: true, value };
  }
  // A getter may copy JSON data too (a chain run inside it): each copy minds its own part.
  const base = ancestors.length;
  const visitedBefore = visited;
  visited = 0;
  try {
    return { ok: true, value: copyValue(value, 0, base, freezeRoot) };
  } catch (error) {
    const stop = error === lastStop ? (error as Stop) : unreadable(error);
    return { ok: false, reason: `${formatPath(root, stop.keys)}: ${stop.problem}` };
  } finally {
    ancestors.length = base;
    visited = visitedBefore;
    lastStop = undefined;
  }
}

function copyValue(value: unknown, depth: number, base: number, freeze = true): unknown {
  if (++visited > MAX_VALUES) {
    throw stop(`holds more than ${MAX_VALUES} values (a value used twice counts twice)`);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw stop(`${value} is not JSON data`);
    case 'undefined':
      throw stop('undefined is not JSON data');
    case 'bigint':
    case 'symbol':
    case 'function':
      throw stop(`a ${typeof value} is not JSON data`);
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.indexOf(object, base) !== -1) throw stop('a cycle is not JSON data');
  if (depth >= MAX_DEPTH) throw stop(`is nested more than ${MAX_DEPTH} levels deep`);
  ancestors.push(object);
  const copy = Array.isArray(object)
    ? copyArray(object, depth, base)
    : copyObject(object as Record<string, unknown>, depth, base);
  ancestors.pop();
  return freeze ? Object.freeze(copy) : copy;
}

function copyArray(array: readonly unknown[], depth: number, base: number): unknown[] {
  const length = array.length;
  const copy = new Array(length);
  for (let i = 0; i < length; i++) {
    try {
      copy[i] = copyValue(array[i], depth + 1, base);
    } catch (error) {
      throw at(error, i);
    }
  }
  return copy;
}

function copyObject(
  object: Record<string, unknown>,
  depth: number,
  base: number,
): Record<string, unknown> {
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) throw stop(`${kindOf(proto)} is not JSON data`);
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    try {
      const item = object[key];
      if (item === undefined) continue;
      const copied = copyValue(item, depth + 1, base);
      setOwn(copy, key, copied);
    } catch (error) {
      throw at(error, key);
    }
  }
  return copy;
}

function stop(problem: string): Stop {
  lastStop = new Stop(problem);
  return lastStop;
}

/** A throw on the way out of `key`: our Stop gets the key, anything else becomes one. */
function at(error: unknown, key: string | number): Stop {
  const reason = error === lastStop ? (error as Stop) : unreadable(error);
  reason.keys.push(key);
  return reason;
}

/** A getter or a proxy trap threw: the value there cannot be read. */
function unreadable(error: unknown): Stop {
  return stop(`cannot be read (threw ${describeError(error)})`);
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
function formatPath(root: string, innermostFirst: ReadonlyArray<string | number>): string {
  const keys = [...innermostFirst].reverse();
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
