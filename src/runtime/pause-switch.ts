import type { ChainOutcome } from '../chain/outcome.js';
import { type PauseFlag, pauseRefusal, readPause } from '../config/pause.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { hermesHomeOf } from '../policy/protected/ground.js';
import { frameworkRefusal } from './tool-call-refusals.js';

/** How often a running runtime looks at the flag again (docs/teams.md, Kill switch). */
export const PAUSE_POLL_MS = 200;

interface Watched {
  flag: PauseFlag | undefined;
  timer: NodeJS.Timeout;
  users: number;
}

/** One look at each home's flag per interval, however many runtimes of this process share it. */
const watched = new Map<string, Watched>();

/**
 * The kill switch on every tool call (docs/teams.md, Kill switch): while a pause flag is there
 * (src/config/pause.ts), the call is refused before anything else is judged. Every host runs
 * tool calls through `Turn.interceptToolCall`, so every host — the hooks in their own process
 * and through the daemon, the bridge, the MCP proxy, the in-process runtimes — is paused.
 *
 * The flag is read when the runtime is made (a hook process, which lives for one call, sees it at
 * once), then every {@link PAUSE_POLL_MS} by a timer that keeps no process alive: a runtime that
 * is already running (a daemon's, a long agent's) is paused within that time. Not on each call:
 * a look at the disk costs microseconds, dispatch without it tens of nanoseconds (BENCHMARKS.md).
 */
export class PauseSwitch {
  readonly #home: string;
  /** The home's shared look at the flag: a field read per call, nothing more. */
  readonly #watched: Watched;
  #closed = false;

  /** `home`: `$HERMES_HOME` as protected ground places it, so the flag is always on that ground. */
  constructor(home: string = hermesHomeOf(process.env)) {
    this.#home = home;
    const known = watched.get(home);
    if (known !== undefined) {
      known.users++;
      this.#watched = known;
      return;
    }
    const entry: Watched = {
      flag: readPause(home),
      timer: setInterval(() => {
        entry.flag = readPause(home);
      }, PAUSE_POLL_MS).unref(),
      users: 1,
    };
    watched.set(home, entry);
    this.#watched = entry;
  }

  refusal(call: ToolCallInput): ChainOutcome<Record<string, unknown>> | undefined {
    const flag = this.#watched.flag;
    return flag === undefined ? undefined : frameworkRefusal(call, pauseRefusal(flag));
  }

  /** Stops looking, once no runtime of this process for the same home does. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (--this.#watched.users > 0) return;
    clearInterval(this.#watched.timer);
    if (watched.get(this.#home) === this.#watched) watched.delete(this.#home);
  }
}
