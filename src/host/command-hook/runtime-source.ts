import type { Logger } from '../../log/logger.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { Runtime } from '../../runtime/runtime.js';

/**
 * Where a hook event's runtime comes from, and where it goes after the event. The hook process
 * loads one per event and closes it (what observers buffered is written before it exits); the
 * hook daemon keeps one warm in each of its runtime workers (src/host/daemon/worker-events.ts).
 */
export interface RuntimeSource {
  /** The runtime for `cwd`'s project, as `loadRuntime` would build it now. */
  acquire(options: { cwd: string; home: string; logger: Logger }): Promise<Runtime>;
  /** The event is done with it. */
  release(runtime: Runtime): Promise<void>;
}

/** One runtime per event: loaded, used, closed. */
export const loadPerEvent: RuntimeSource = {
  acquire: (options) => loadRuntime(options),
  release: (runtime) => runtime.close(),
};
