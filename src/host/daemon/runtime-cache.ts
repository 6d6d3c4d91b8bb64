import { resolve } from 'node:path';
import { findProjectConfig } from '../../config/find-project-config.js';
import { findProjectRoot } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import { type LoadRuntimeOptions, loadRuntime } from '../../runtime/load-runtime.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { RuntimeSource } from '../command-hook/runtime-source.js';
import { WatchSet } from './watch-set.js';

interface Entry {
  key: string;
  root: string;
  ready: Promise<Runtime>;
  watch: WatchSet;
  /** Events using it now. */
  users: number;
  /** Replaced (its files changed) or dropped: closed once its last user lets go. */
  retired: boolean;
}

/**
 * The hook daemon's runtimes, one per project: what `loadRuntime` builds for an event's `cwd`
 * depends on the project root and on the project config found from `cwd`, so those two (and
 * `$HERMES_HOME`) are the key, and projects never share a runtime. Before each use the files
 * and folders the runtime was built from are checked (watch-set.ts); if any changed, a new
 * runtime is loaded, as the hook process would load one, and the old one is closed once the
 * events using it are done. A runtime that failed to load is not kept: the next event tries again.
 */
export class RuntimeCache implements RuntimeSource {
  readonly #entries = new Map<string, Entry>();
  readonly #byRuntime = new WeakMap<Runtime, Entry>();
  /** Every entry not closed yet, kept or retired. */
  readonly #open = new Set<Entry>();
  readonly #closing = new Set<Promise<void>>();
  readonly #logger: Logger;
  readonly #load: (options: LoadRuntimeOptions) => Promise<Runtime>;

  /** `logger`: where the runtimes log (the daemon routes it to the event being answered). */
  constructor(
    logger: Logger,
    load: (options: LoadRuntimeOptions) => Promise<Runtime> = loadRuntime,
  ) {
    this.#logger = logger;
    this.#load = load;
  }

  async acquire({ cwd, home }: { cwd: string; home: string }): Promise<Runtime> {
    const dir = resolve(cwd);
    const root = findProjectRoot(dir, home);
    const config = findProjectConfig(dir, root)?.file ?? '';
    const key = [home, root, config].join('\0');
    let entry = this.#entries.get(key);
    if (entry?.watch.changed()) {
      this.#retire(entry);
      entry = undefined;
    }
    if (entry === undefined) entry = this.#build(key, root, dir, home);
    entry.users++;
    try {
      return await entry.ready;
    } catch (error) {
      entry.users--;
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      throw error;
    }
  }

  async release(runtime: Runtime): Promise<void> {
    const entry = this.#byRuntime.get(runtime);
    if (entry === undefined) return runtime.close();
    entry.users--;
    if (entry.retired && entry.users === 0) this.#close(entry);
  }

  /** The projects whose runtimes are kept now. */
  get projects(): string[] {
    return [...new Set([...this.#entries.values()].map((e) => e.root))].sort();
  }

  /** Closes every runtime, in use or not (the daemon is exiting), and waits for them. */
  async closeAll(): Promise<void> {
    this.#entries.clear();
    for (const entry of [...this.#open]) this.#close(entry);
    await Promise.all(this.#closing);
  }

  #build(key: string, root: string, cwd: string, home: string): Entry {
    const watch = new WatchSet();
    const entry: Entry = {
      key,
      root,
      watch,
      users: 0,
      retired: false,
      ready: this.#load({ cwd, home, logger: this.#logger, watch: (path) => watch.add(path) }),
    };
    entry.ready.then(
      (runtime) => this.#byRuntime.set(runtime, entry),
      () => this.#open.delete(entry),
    );
    this.#entries.set(key, entry);
    this.#open.add(entry);
    return entry;
  }

  #retire(entry: Entry): void {
    entry.retired = true;
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    if (entry.users === 0) this.#close(entry);
  }

  /** Closes the entry's runtime once it has loaded (at once if it has); waited for by closeAll. */
  #close(entry: Entry): void {
    if (!this.#open.delete(entry)) return;
    const closing = entry.ready
      .then(
        (runtime) => runtime.close(),
        () => {},
      )
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}
