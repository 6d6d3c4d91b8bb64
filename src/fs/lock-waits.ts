import { AsyncLocalStorage } from 'node:async_hooks';

const waitsNoted = new AsyncLocalStorage<Set<string>>();

/**
 * Runs `fn`, with `waits` holding the path of each owned lock taken with `answerWaits`
 * (owned-lock.ts) that its work is waiting for, while it waits: what a deadline that passes
 * meanwhile can name (owned-lock.ts `describeLockWaits`) rather than blaming the handlers.
 */
export function noteLockWaits<T>(waits: Set<string>, fn: () => T): T {
  return waitsNoted.run(waits, fn);
}

/** Where the work running now notes the locks it waits for; none outside noteLockWaits. */
export function answerWaits(): Set<string> | undefined {
  return waitsNoted.getStore();
}
