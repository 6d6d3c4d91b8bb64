/**
 * One timer for every pending async handler's timeout, instead of a `setTimeout`/`clearTimeout`
 * pair per handler (about 320 ns on Node 20, several awaits' worth). Waits sit in an intrusive
 * doubly linked list (O(1) in and out, no hashing of the waiting object); the timer is armed for
 * the earliest deadline and, when it fires, times out what is due and re-arms for the next.
 *
 * Deadlines are `performance.now()` times (the chain already has the handler's start time), and
 * the timer is whatever `setTimeout` is global at arming time, so fake timers in tests (which
 * fake both) drive timeouts like real ones; a switch between real and fake timers re-arms with
 * the current pair.
 */
export interface Watched {
  /** Absolute deadline, in `performance.now()` milliseconds. */
  deadline: number;
  watching: boolean;
  previousWait: Watched | undefined;
  nextWait: Watched | undefined;
  onTimeout(): void;
}

let head: Watched | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let armedDeadline = Number.POSITIVE_INFINITY;
let armedWith: typeof setTimeout | undefined;
let clearWith: typeof clearTimeout = clearTimeout;
let holding = false;

export function watch(wait: Watched): void {
  wait.watching = true;
  wait.previousWait = undefined;
  wait.nextWait = head;
  if (head !== undefined) head.previousWait = wait;
  head = wait;
  if (wait.deadline < armedDeadline || armedWith !== globalThis.setTimeout) arm(wait.deadline);
  else if (!holding) hold(true);
}

export function unwatch(wait: Watched): void {
  if (!wait.watching) return;
  wait.watching = false;
  if (wait.previousWait === undefined) head = wait.nextWait;
  else wait.previousWait.nextWait = wait.nextWait;
  if (wait.nextWait !== undefined) wait.nextWait.previousWait = wait.previousWait;
  wait.previousWait = undefined;
  wait.nextWait = undefined;
}

/**
 * Lets the process exit if nothing waits any more. Called when a chain that waited finishes, not
 * when each handler settles: a chain of async handlers leaves the list and joins it again for
 * every handler, and the timer's keep-alive flag should not flip each time.
 */
export function releaseIfIdle(): void {
  if (head === undefined && holding) hold(false);
}

/** The timer keeps the process alive only while something is waiting on it. */
function hold(keepAlive: boolean): void {
  holding = keepAlive;
  if (keepAlive) timer?.ref?.();
  else timer?.unref?.();
}

function arm(deadline: number): void {
  if (timer !== undefined) clearWith(timer);
  armedWith = globalThis.setTimeout;
  clearWith = globalThis.clearTimeout;
  armedDeadline = deadline;
  timer = armedWith(fire, Math.max(0, deadline - performance.now()));
  hold(head !== undefined);
}

function fire(): void {
  timer = undefined;
  armedDeadline = Number.POSITIVE_INFINITY;
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  let wait = head;
  while (wait !== undefined) {
    const following = wait.nextWait;
    if (wait.deadline <= now) {
      unwatch(wait);
      // May start the chain's next handler, which joins at the head: not visited in this pass.
      try {
        wait.onTimeout();
      } catch {
        // A chain settles itself even when it fails (`ChainRun.guardedResume`); should one ever
        // throw, the waits after it must still time out, and a timer callback must not throw.
      }
    } else if (wait.deadline < next) {
      next = wait.deadline;
    }
    wait = following;
  }
  // Waits that joined during this pass armed the timer themselves, if they were earliest.
  if (next < armedDeadline) arm(next);
}
