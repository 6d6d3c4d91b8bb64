import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which extension's code is running, across every timer and promise it starts: what lets a
 * process-level handler of an uncaught exception or an unhandled rejection name the extension
 * that caused it (the hook process, hook-process.ts; the daemon's runtime worker,
 * worker-events.ts). Node runs those handlers in the async context of the code that threw.
 *
 * Off until a host turns it on, before any extension loads: async context tracking makes every
 * promise of the process a little slower, which an agent that embeds the runtime does not need.
 * Off, registering a handler costs nothing and calling one costs nothing more.
 */
let owners: AsyncLocalStorage<string> | undefined;

/** From now on, extension code that loads or registers runs with its extension as its owner. */
export function trackExtensionOwners(): void {
  owners ??= new AsyncLocalStorage<string>();
}

/** The extension whose code (or what that code started) is running now, if tracked. */
export function currentOwner(): string | undefined {
  return owners?.getStore();
}

/** `fn()` with `extension` as the owner of everything it runs and starts. */
export function runOwnedBy<T>(extension: string, fn: () => T): T {
  return owners === undefined ? fn() : owners.run(extension, fn);
}

/** `fn`, calling which runs it owned by `extension`; `fn` itself while owners are not tracked. */
export function ownedBy<A extends unknown[], R>(
  extension: string,
  fn: (...args: A) => R,
): (...args: A) => R {
  const store = owners;
  if (store === undefined) return fn;
  return (...args: A) => store.run(extension, fn, ...args);
}
