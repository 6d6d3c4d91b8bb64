import { resolve } from 'node:path';
import { findProjectConfig } from '../../config/find-project-config.js';
import { findProjectRoot } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import type { CommandHookAgent } from '../command-hook/agents.js';
import { pinOfInput } from '../command-hook/session-root.js';
import type { EvictionLimits } from './runtime-eviction.js';

// What the daemon's runtimes (runtime-workers.ts) are given and answer for: an event, and the
// project it is answered in.

export interface RuntimeWorkersOptions {
  /** `$HERMES_HOME`, resolved. */
  home: string;
  /** The daemon's own log. */
  log: Logger;
  maxRuntimes?: number;
  /** When idle runtimes are let go (runtime-eviction.ts); default: RUNTIME_IDLE_MS, MAX_RSS_MB. */
  limits?: Partial<EvictionLimits>;
  /** The worker's entry; default: this package's, as built (runtime-worker.ts, bundled). */
  workerFile?: string;
}

/** One event for a runtime: who asks, what, where, and with which environment. */
export interface RuntimeEvent {
  agent: CommandHookAgent;
  eventName: string | undefined;
  stdin: string;
  /** The folder the event is judged in (its `cwd`), unless its session has pinned its own. */
  cwd: string;
  env: Record<string, string>;
  deadlineMs: number;
  /**
   * When (epoch ms) its client stops waiting: it waits for a runtime (a place under the bound, or
   * another runtime than one that did not take it) at most half of what is left until then, and
   * is not started after: its client answers it in-process. Default: `deadlineMs` from now.
   */
  until?: number;
  /** Whether its client has gone: it is not started then. */
  gone?: () => boolean;
}

/**
 * The project an event is answered in, as the worker's hook will load it: the session's pinned
 * one (session-root.ts; a store that cannot be used is the worker's hook's to refuse with its
 * reason), else the event's folder's. `key` names its runtimes; `place` is what its hook asks
 * a runtime for (the pinned folder and root, or the event's folder alone).
 */
export async function runtimePlace(
  event: Pick<RuntimeEvent, 'agent' | 'stdin' | 'cwd' | 'env'>,
  home: string,
) {
  const pin = await pinOfInput(event.agent, event.stdin, home, event.env).catch(() => undefined);
  const dir = pin?.from ?? resolve(event.cwd);
  const root = pin?.root ?? findProjectRoot(dir, home);
  const key = `${root}\0${findProjectConfig(dir, root)?.file ?? ''}`;
  return { key, root, place: pin === undefined ? { cwd: dir } : { cwd: pin.from, root } };
}
