/**
 * One timer for every pending async handler's timeout, instead of a `setTimeout`/`clearTimeout`
 * pair per handler (about 320 ns on Node 20, several awaits' worth). Waits go into a set with
 * their deadline; the timer is armed for the earliest one and, when it fires, times out what is
 * due and re-arms for the next. A wait that settles first just leaves the set.
 *
 * Deadlines use `Date.now()` and the timer is whatever `setTimeout` is global at arming time,
 * so fake timers in tests (which fake both) drive timeouts like real ones; a switch between real
 * and fake timers re-arms with the current pair.
 */
export interface Watched {
  /** Absolute deadline, `Date.now()` milliseconds. */
  deadline: number;
  onTimeout(): void;
}

const waits = new Set<Watched>();
let timer: ReturnType<typeof setTimeout> | undefined;
let armedDeadline = Number.POSITIVE_INFINITY;
let armedWith: typeof setTimeout | undefined;
let clearWith: typeof clearTimeout = clearTimeout;

export function watch(wait: Watched): void {
  waits.add(wait);
  if (wait.deadline < armedDeadline || armedWith !== globalThis.setTimeout) arm(wait.deadline);
  // The timer keeps the process alive only while something is waiting on it.
  else if (waits.size === 1) timer?.ref?.();
}

export function unwatch(wait: Watched): void {
  if (waits.delete(wait) && waits.size === 0) timer?.unref?.();
}

function arm(deadline: number): void {
  if (timer !== undefined) clearWith(timer);
  armedWith = globalThis.setTimeout;
  clearWith = globalThis.clearTimeout;
  armedDeadline = deadline;
  timer = armedWith(fire, Math.max(0, deadline - Date.now()));
  if (waits.size === 0) timer?.unref?.();
}

function fire(): void {
  timer = undefined;
  armedDeadline = Number.POSITIVE_INFINITY;
  const now = Date.now();
  let next = Number.POSITIVE_INFINITY;
  for (const wait of waits) {
    if (wait.deadline <= now) {
      waits.delete(wait);
      wait.onTimeout();
    } else if (wait.deadline < next) {
      next = wait.deadline;
    }
  }
  if (next < Number.POSITIVE_INFINITY) arm(next);
}
