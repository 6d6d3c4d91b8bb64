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

/** Where each loaded extension's code is (its folder or file), while owners are tracked. */
const places = new Map<string, string>();

/** The extension whose code (or what that code started) is running now, if tracked. */
export function currentOwner(): string | undefined {
  return owners?.getStore();
}

/** Notes that the code at `location` (an extension's folder or file) is `extension`'s. */
export function noteExtensionPlace(location: string, extension: string): void {
  if (owners !== undefined) places.set(location, extension);
}

/**
 * The extension whose code is nearest the top of `stack`, for what ran outside any owner (an
 * event emitted by code that is not the extension's, to a listener that is): a frame in its
 * folder or file, by path, by `file:` URL, or as the project bundle named after its entry
 * (`hermes-bundle:<entry>`, src/modules/project-code/bundle.ts).
 */
export function ownerInStack(stack: string | undefined): string | undefined {
  if (stack === undefined || places.size === 0) return undefined;
  for (const frame of stack.split('\n')) {
    // Frames only: the message may name any path.
    if (!/^\s+at /.test(frame)) continue;
    for (const [location, extension] of places) {
      if (inFrame(frame, location) || inFrame(frame, encodeURI(location))) return extension;
    }
  }
  return undefined;
}

/** Whether `frame` names a file at `location` or in it (not in a sibling that starts alike). */
function inFrame(frame: string, location: string): boolean {
  for (let at = frame.indexOf(location); at !== -1; at = frame.indexOf(location, at + 1)) {
    const next = frame[at + location.length];
    if (next === undefined || '/:?)'.includes(next)) return true;
  }
  return false;
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
