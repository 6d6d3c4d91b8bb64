import { readFileSync, unlinkSync } from 'node:fs';

/**
 * A part of a process that can be ended while the process goes on (a hook daemon's runtime worker
 * thread), as the owned locks taken in it (owned-lock.ts) know it. A waiter asks whether a lock's
 * process still runs, and it does: so the unit's keeper, on the side that ends it, is told of each
 * lock file with its exact owner text just before it is created (a unit ended at any moment after
 * leaves none unknown; told by a message, which arrives even when the unit then never yields) and
 * after it is removed, and removes, once the unit has ended, every one still holding that text.
 */
export interface LockUnit {
  /** Named in the owner text: what a waiter's timeout says holds the lock. */
  readonly name: string;
  taking(path: string, text: string): void;
  released(path: string, text: string): void;
}

// On globalThis: the framework and an extension that imports it may be two copies of the module
// in one thread (a bundled extension); each thread has its own globalThis.
const UNIT = Symbol.for('hermes-extensions.owned-lock.unit');
type WithUnit = { [UNIT]?: LockUnit };

/** Every owned lock taken in this thread from now on is held in `unit`. */
export function holdLocksIn(unit: LockUnit): void {
  (globalThis as WithUnit)[UNIT] = unit;
}

/** The unit this thread's locks are held in; none outside one. */
export function currentLockUnit(): LockUnit | undefined {
  return (globalThis as WithUnit)[UNIT];
}

/** The keeper's side: the lock files a unit holds, to remove once it has ended. */
export class UnitLocks {
  readonly #held = new Map<string, { path: string; text: string }>();

  taking(path: string, text: string): void {
    this.#held.set(`${path}\0${text}`, { path, text });
  }

  released(path: string, text: string): void {
    this.#held.delete(`${path}\0${text}`);
  }

  /**
   * Once the unit has ended: removes each lock file it held that still holds its owner text (one
   * taken over since, or never created, is left), and returns their paths.
   */
  removeAll(): string[] {
    const removed: string[] = [];
    for (const { path, text } of this.#held.values()) {
      let now: string | undefined;
      try {
        now = readFileSync(path, 'utf8');
      } catch {
        now = undefined;
      }
      if (now !== text) continue;
      try {
        unlinkSync(path);
        removed.push(path);
      } catch {
        // Gone meanwhile.
      }
    }
    this.#held.clear();
    return removed;
  }
}
