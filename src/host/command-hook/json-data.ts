/**
 * `value` as JSON data, copied, or an error that says which key holds what instead. JSON data is
 * what `JSON.stringify` writes and `JSON.parse` reads back unchanged: null, booleans, finite
 * numbers, strings, arrays of JSON data and plain objects of it. A Date, a Map, a class instance,
 * a BigInt, a function, a cycle or `NaN` would come back changed, dropped or not at all. An
 * object's key whose value is `undefined` is left out: it reads back the same.
 *
 * Each value is read once (a getter runs once), so what was checked is what is written.
 */
export function copyJsonData(value: unknown, path: string): unknown {
  return copy(value, path, []);
}

/** Names the key path that does not hold JSON data, and what it holds. */
export class NotJsonDataError extends Error {
  override readonly name = 'NotJsonDataError';
}

function copy(value: unknown, path: string, ancestors: object[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new NotJsonDataError(`${path} is ${value}`);
    case 'object':
      break;
    default:
      throw new NotJsonDataError(`${path} is a ${typeof value}`);
  }
  if (value === null) return null;
  if (ancestors.includes(value)) throw new NotJsonDataError(`${path} is a cycle (it holds itself)`);
  const inside = [...ancestors, value];
  let prototype: unknown;
  let isArray: boolean;
  try {
    isArray = Array.isArray(value);
    prototype = Object.getPrototypeOf(value);
  } catch {
    throw new NotJsonDataError(`${path} is an object that cannot be read`);
  }
  if (isArray) {
    const array = value as unknown[];
    const result: unknown[] = [];
    for (let i = 0; i < array.length; i++) {
      if (!(i in array)) throw new NotJsonDataError(`${path}[${i}] is a hole in the array`);
      const item = array[i];
      if (item === undefined) throw new NotJsonDataError(`${path}[${i}] is undefined`);
      result.push(copy(item, `${path}[${i}]`, inside));
    }
    return result;
  }
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    throw new NotJsonDataError(
      `${path} is a ${typeof name === 'string' && name !== '' ? name : 'non-plain object'}`,
    );
  }
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    // Defined, not assigned: a key named `__proto__` stays a key.
    Object.defineProperty(result, key, {
      value: copy(item, `${path}${keyPath(key)}`, inside),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function keyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
