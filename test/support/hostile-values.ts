import { afterEach, beforeEach, expect } from 'vitest';

/**
 * Values a hostile (or merely broken) extension can hand the framework: errors whose fields
 * throw when read, proxies whose every trap throws, promises that refuse to be awaited. Each is
 * built fresh per call, so one test's reads cannot change what another sees.
 */

/** A proxy handler whose every trap throws, itself a proxy so no trap is forgotten. */
const everyTrapThrows = new Proxy(
  {},
  {
    get: (_target, trap) => () => {
      throw new Error(`trap ${String(trap)}`);
    },
  },
);

/** An object (or function) whose every operation throws: property reads, `instanceof`, keys. */
export function trapEverything<T extends object>(target: T): T {
  return new Proxy(target, everyTrapThrows as ProxyHandler<T>);
}

/** An Error whose `field` getter throws (what it throws is `thrown`, a hostile value itself). */
export function errorWithThrowing(
  field: 'message' | 'name' | 'stack',
  thrown: () => unknown = () => new Error(`${field} getter`),
): Error {
  const error = new Error('hidden');
  Object.defineProperty(error, field, {
    get() {
      throw thrown();
    },
  });
  return error;
}

/** A real promise whose `constructor` getter throws: `Promise.resolve(p)` and `p.then` throw. */
export function promiseWithThrowingConstructor(settle: Promise<unknown>): Promise<unknown> {
  Object.defineProperty(settle, 'constructor', {
    get() {
      throw new Error('constructor getter');
    },
  });
  return settle;
}

/** An object whose `then` getter throws. */
export function thenGetterThrows(): object {
  return {
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point
    get then() {
      throw new Error('then getter');
    },
  };
}

/** Every hostile thing a handler or an observer can throw or reject with. */
export function hostileErrors(): Record<string, () => unknown> {
  return {
    'an Error whose message getter throws': () => errorWithThrowing('message'),
    'an Error whose name getter throws': () => errorWithThrowing('name'),
    'an Error whose stack getter throws': () => errorWithThrowing('stack'),
    'an Error whose message getter throws a proxy': () =>
      errorWithThrowing('message', () => trapEverything(new Error('inner'))),
    'a proxy of an Error': () => trapEverything(new Error('proxied')),
    'a proxy of a function': () => trapEverything(() => {}),
    'a revoked proxy': () => {
      const { proxy, revoke } = Proxy.revocable(new Error('revoked'), {});
      revoke();
      return proxy;
    },
    'an object whose toString throws': () => ({
      toString() {
        throw new Error('toString');
      },
    }),
  };
}

/** Every hostile thing a handler or an observer can return (besides throwing and rejecting). */
export function hostileResults(): Record<string, () => unknown> {
  return {
    'a result whose then getter throws': thenGetterThrows,
    'a proxy result': () => trapEverything({ action: 'pass' }),
    'a proxy of a promise': () => trapEverything(Promise.resolve()),
    'a promise whose constructor getter throws': () =>
      promiseWithThrowingConstructor(Promise.resolve(undefined)),
    'a rejected promise whose constructor getter throws': () => {
      const rejected = Promise.reject(new Error('rejected'));
      rejected.catch(() => {});
      return promiseWithThrowingConstructor(rejected);
    },
    'a result whose action getter throws': () => ({
      get action() {
        throw new Error('action getter');
      },
    }),
    'a result whose action getter throws a proxy': () => ({
      get action() {
        throw trapEverything(new Error('proxied'));
      },
    }),
    'a rewrite whose value getter throws': () => ({
      action: 'rewrite',
      get value() {
        throw new Error('value getter');
      },
    }),
    'a block whose value getter throws a proxy': () => ({
      action: 'block',
      get value() {
        throw trapEverything(new Error('proxied'));
      },
    }),
    'a thenable whose then throws a proxy': () => ({
      // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of the test
      then() {
        throw trapEverything(new Error('proxied'));
      },
    }),
    'a promise of a proxy result': () => Promise.resolve().then(() => trapEverything({})),
    'a promise of a result whose then getter throws': () =>
      Promise.resolve().then(() => thenGetterThrows()),
  };
}

/**
 * Records every `unhandledRejection` and `uncaughtException` while a test runs, and asserts after
 * it (once timers and microtasks have drained) that none came.
 */
export function noEscapes(): { drain: () => Promise<void>; escaped: Array<[string, unknown]> } {
  const escaped: Array<[string, unknown]> = [];
  const onRejection = (reason: unknown) => escaped.push(['unhandledRejection', reason]);
  const onException = (error: unknown) => escaped.push(['uncaughtException', error]);
  beforeEach(() => {
    escaped.length = 0;
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
  });
  afterEach(async () => {
    await drain();
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    expect(escaped.map(([kind]) => kind)).toEqual([]);
  });
  return { drain, escaped };
}

/** Lets microtasks, immediates and zero-delay timers run, twice over. */
export async function drain(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}
