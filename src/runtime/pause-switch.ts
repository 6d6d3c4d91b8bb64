import type { ChainOutcome } from '../chain/outcome.js';
import { pauseRefusal, readPause } from '../config/pause.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { hermesHomeOf } from '../policy/protected/ground.js';
import { frameworkRefusal } from './tool-call-refusals.js';

/**
 * The kill switch on every tool call (docs/teams.md, Kill switch): while a pause flag is there
 * (src/config/pause.ts), the call is refused before anything else is judged. Every host runs
 * tool calls through `Turn.interceptToolCall`, so every host — the hooks in their own process
 * and through the daemon, the bridge, the MCP proxy, the in-process runtimes — is paused at
 * once. The flag is read on each call, not cached: a pause or a resume counts from the next call
 * of a runtime that is already running (a daemon's, a long agent's).
 */
export class PauseSwitch {
  readonly #home: string;

  /** `home`: `$HERMES_HOME` as protected ground places it, so the flag is always on that ground. */
  constructor(home: string = hermesHomeOf(process.env)) {
    this.#home = home;
  }

  refusal(call: ToolCallInput): ChainOutcome<Record<string, unknown>> | undefined {
    const flag = readPause(this.#home);
    return flag === undefined ? undefined : frameworkRefusal(call, pauseRefusal(flag));
  }
}
