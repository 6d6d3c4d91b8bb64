/** A call waiting for a place for a new runtime (a project's, or a hook environment's). */
interface Waiter {
  key: string;
  since: number;
  /** Given a place (true), or not in time (false). */
  wake(placed: boolean): void;
}

/**
 * The calls waiting for a place for a new runtime when the daemon keeps as many as it may
 * (runtime-workers.ts), and the places given to them and not yet taken, which count as taken.
 * Places go first to the project holding the fewest runtimes — a project whose runtimes are all
 * busy, or stuck, does not take every place — then to the call that has waited longest.
 */
export class RuntimeQueue {
  readonly #waiting = new Set<Waiter>();
  /** Places given (#wake) whose waiter has not yet made its runtime. */
  #given = 0;

  get waiting(): number {
    return this.#waiting.size;
  }

  /** Places given and not yet taken: not free for anyone else. */
  get given(): number {
    return this.#given;
  }

  /**
   * Waits for a place for a runtime of `key` until `startBy` (epoch ms): true once given one, which
   * the caller then takes (`take`) before it awaits anything; false when none came in time.
   */
  wait(key: string, startBy: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        key,
        since: Date.now(),
        wake: (placed) => {
          clearTimeout(timer);
          this.#waiting.delete(waiter);
          resolve(placed);
        },
      };
      const timer = setTimeout(() => waiter.wake(false), Math.max(0, startBy - Date.now()));
      this.#waiting.add(waiter);
    });
  }

  /** The place given to a waiter is being used now (its runtime made). */
  take(): void {
    this.#given--;
  }

  /**
   * Gives places to waiters while `room()` says there is one, fairly: `held(key)` is how many
   * runtimes project `key` has.
   */
  wake(room: () => boolean, held: (key: string) => number): void {
    while (this.#waiting.size > 0 && room()) {
      let next: Waiter | undefined;
      for (const waiter of this.#waiting) {
        const order =
          next === undefined ? -1 : held(waiter.key) - held(next.key) || waiter.since - next.since;
        if (order < 0) next = waiter;
      }
      if (next === undefined) return;
      this.#given++;
      next.wake(true);
    }
  }

  /** Every waiter told there is no place (the daemon is stopping). */
  close(): void {
    for (const waiter of [...this.#waiting]) waiter.wake(false);
  }
}
