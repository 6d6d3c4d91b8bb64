const MAX_DEPTH = 100;

/**
 * A deep, frozen copy of JSON-like data. Handlers get these instead of the host's objects, so a
 * handler can neither change what the agent does behind the chain's back nor see another
 * handler's mutation. Plain objects and arrays are copied; other objects (Dates, Buffers,
 * class instances) are passed by reference, as they are not JSON tool data.
 */
export function frozenCopy<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) {
    throw new TypeError(`payload is nested more than ${MAX_DEPTH} levels deep (or is cyclic)`);
  }
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = frozenCopy(value[i], depth + 1);
    return Object.freeze(copy) as T;
  }
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(copy, key, frozenCopy((value as Record<string, unknown>)[key], depth + 1));
  }
  return Object.freeze(copy) as T;
}

/**
 * `object[key] = value`, except for a key named `__proto__` (JSON.parse makes it an own key of
 * what an agent sends): assigned, it would set the object's prototype, and handlers would see the
 * agent's values as inherited arguments and not the key itself. Defined, it stays an own key.
 */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else object[key] = value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
