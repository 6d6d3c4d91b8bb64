import type { Claim } from './event-claims.js';
import type { ReadRecord } from './read-stamps.js';
import type { EnvRead } from './thread-env.js';

/**
 * What the hook daemon (runtime-workers.ts) and one of its runtime workers (runtime-worker.ts)
 * say to each other over the worker's port.
 */
export type ToWorker =
  /** Before anything else: the environment of the first hook it serves, the thread's own now. */
  | { type: 'adopt'; env: Record<string, string> }
  /**
   * One hook event to answer as the hook process would, with `$HERMES_HOME` `home` and the asking
   * hook's environment `env`. Started only if the worker takes its `claim` (event-claims.ts):
   * the daemon may have withdrawn it meanwhile, to send it to another runtime.
   */
  | {
      type: 'event';
      id: number;
      agent: string;
      stdin: string;
      home: string;
      env: Record<string, string>;
      claim: Claim;
    }
  /**
   * Load the runtime now, as an event's hook would ask for it (`cwd`, the pinned `root`), with
   * `process.env` being `env`: the session starts, and its events will wait for this load.
   */
  | { type: 'warm'; cwd: string; root?: string; home: string; env: Record<string, string> }
  /** Take `claim` at once: a thread that does not within a while is not reading its port (stuck). */
  | { type: 'probe'; claim: Claim }
  /** Close the runtime (observers flush) and end. */
  | { type: 'close' };

export type FromWorker =
  /**
   * The runtime was loaded (or failed to): what loading read — files, and the environment
   * variables — and whether the runtime may answer later events: not when its load failed or an
   * extension failed to load or set up, which the next event tries again.
   */
  | { type: 'loaded'; records: ReadRecord[]; env: EnvRead; keep: boolean }
  /** The answer to event `id`, printed as the hook process prints it; `late`: past the deadline. */
  | { type: 'answer'; id: number; stdout: string; stderr: string; exitCode: number; late: boolean }
  /**
   * The thread had an uncaught exception or an unhandled rejection (src/host/process-crash.ts): `why`
   * names the extension and the error. Its runtime answers no more events.
   */
  | { type: 'crashed'; why: string; stack?: string }
  /**
   * An owned lock (or break claim) at `path` with owner text `text` is about to be created
   * (`held`), or was removed or never made: the daemon removes those it still holds once the
   * thread has ended (lock-unit.ts).
   */
  | { type: 'lock'; path: string; text: string; held: boolean }
  /**
   * A sandboxed line was made pointed at the daemon's network filter for `domains` in the state
   * folder `stateDir` (src/policy/sandbox/network-filter.ts): the daemon keeps one running.
   */
  | { type: 'network'; stateDir: string; domains: string[] }
  /**
   * A line the runtime logged while no event was being answered: the daemon's own log. With
   * `tell`, a warning also told once with a later answer: of `session` if the work of an event of
   * that session logged it, else of any session this runtime serves (late-notices.ts).
   */
  | {
      type: 'log';
      level: 'debug' | 'info' | 'warn' | 'error';
      message: string;
      tell?: { session?: string };
    };

/** What the worker is started with (`workerData`). */
export interface WorkerSetup {
  /**
   * Folders whose reads say nothing about the runtime: the framework's own, the transpile cache.
   * Left out by the daemon's first thread (first-thread.ts): its entry takes them itself.
   */
  exclude?: string[];
}
