import type { Worker } from 'node:worker_threads';

/**
 * The thread of a daemon's first runtime, started by `bin/hermes.js` for `hermes daemon run`
 * before that process loads the command line: the framework loads in it meanwhile, on the other
 * core, rather than after the daemon listens. It is started with no `exclude` (its entry takes the
 * framework's folders of `$HERMES_HOME` as the daemon's environment names it: runtime-worker.ts)
 * and unreferenced until taken, so a daemon that finds another one serving still exits. What it
 * posts before it is taken is heard by no one: none of its own code runs until it adopts a runtime.
 */
export interface FirstThread {
  thread: Worker;
  /** The entry it was started with. */
  file: string;
  /** It ended (or failed) before it was taken. */
  ended: boolean;
}

/** Where bin/hermes.js leaves it, for this process alone. */
export const FIRST_THREAD = Symbol.for('hermes-extensions.daemon.first-thread');

/**
 * The first thread, taken once: when it runs `file` with `youngGenerationMb`, is alive, and the
 * daemon's home is the one its entry took from the environment (`sameHome`); otherwise it is
 * ended and undefined returned, and the daemon starts its threads as it always has.
 */
export function takeFirstThread(
  file: string,
  youngGenerationMb: number,
  sameHome: boolean,
): Worker | undefined {
  const holder = globalThis as { [FIRST_THREAD]?: FirstThread };
  const first = holder[FIRST_THREAD];
  delete holder[FIRST_THREAD];
  if (first === undefined || first.ended) return undefined;
  const limits = first.thread.resourceLimits;
  if (first.file !== file || !sameHome || limits?.maxYoungGenerationSizeMb !== youngGenerationMb) {
    void first.thread.terminate();
    return undefined;
  }
  first.thread.ref();
  return first.thread;
}
