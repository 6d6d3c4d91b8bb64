import type { Logger } from '../../log/logger.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { Runtime } from '../../runtime/runtime.js';

/**
 * Where a hook event's runtime comes from, and where it goes after the event. The hook process
 * loads one per event and closes it (what observers buffered is written before it exits); the
 * hook daemon keeps one warm in each of its runtime workers (src/host/daemon/worker-events.ts).
 */
export interface RuntimeSource {
  /**
   * The runtime for `cwd`'s project, as `loadRuntime` would build it now; for the project at
   * `root` when given (the session's pinned root, session-root.ts).
   */
  acquire(options: RuntimePlace): Promise<Runtime>;
  /** The event is done with it. */
  release(runtime: Runtime): Promise<void>;
}

export interface RuntimePlace {
  cwd: string;
  root?: string;
  home: string;
  logger: Logger;
}

/** One runtime per event: loaded, used, closed. */
export const loadPerEvent: RuntimeSource = {
  acquire: (options) => loadRuntime(options),
  release: (runtime) => runtime.close(),
};

/**
 * `use` with the runtime for `cwd`'s project, let go of afterwards whatever `use` does (a loaded
 * one is closed, so what its observers buffered is written).
 */
export async function usingRuntime<T>(
  runtimes: RuntimeSource,
  options: RuntimePlace,
  use: (runtime: Runtime) => Promise<T> | T,
): Promise<T> {
  const runtime = await runtimes.acquire(options);
  try {
    return await use(runtime);
  } finally {
    await runtimes.release(runtime);
  }
}
