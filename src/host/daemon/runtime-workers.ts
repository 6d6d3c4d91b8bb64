import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { findProjectConfig } from '../../config/find-project-config.js';
import { findProjectRoot, transpileCacheDir } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { CommandHookAgent } from '../command-hook/agents.js';
import { pinOfInput } from '../command-hook/session-root.js';
import { daemonLogPath } from './daemon-log.js';
import { LateNotices } from './late-notices.js';
import { sessionOf } from './requests.js';
import { type Printed, WorkerHandle } from './worker-handle.js';

/** How many runtimes are kept at most (`HERMES_DAEMON_MAX_RUNTIMES`). */
export const MAX_RUNTIMES = 8;

export interface RuntimeWorkersOptions {
  /** `$HERMES_HOME`, resolved. */
  home: string;
  /** The daemon's own log. */
  log: Logger;
  maxRuntimes?: number;
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
}

/**
 * The hook daemon's runtimes, each in a worker thread of its own (worker-handle.ts), for what a
 * fresh hook process would load from: the project root pinned for the event's session (or found
 * from its `cwd` when it names none) and the project config found from there, and the environment of the hook that asks. A runtime serves a hook when the values of
 * every environment variable its load read are the hook's too (thread-env.ts notes them; until it
 * has loaded, the whole environment must be the same), and each event is answered with its own
 * hook's `process.env`: an extension reads the asking hook's variables, in `setup` as in its
 * handlers, while hooks whose environments differ only in what loading never read (an agent's
 * session id) share one warm runtime. The project's trust record is part of what a runtime was
 * built from: its load recorded reading it, each file stamped before it was read
 * (read-recorder.ts).
 *
 * Before each event the worker's recorded reads are checked (watch-set.ts); if any changed, or
 * its load failed, or an extension failed to load or set up, or it answered late, a new worker
 * loads the runtime afresh and the old one ends once the events using it are answered — so no
 * module cache of an old load can answer, and nothing failed is kept. At most `maxRuntimes`
 * workers live: past that, the least recently used idle ones end. One more thread is kept started
 * ahead, with the framework loaded and no runtime, for the next runtime to be made. A warning a
 * runtime logs after an answer is told once with a later one (late-notices.ts).
 */
export class RuntimeWorkers {
  /** The workers that take events, least recently used first. */
  readonly #live = new Set<WorkerHandle>();
  /** Every worker not ended yet, retired ones included. */
  readonly #all = new Set<WorkerHandle>();
  readonly #closing = new Set<Promise<void>>();
  readonly #notices = new LateNotices();
  readonly #home: string;
  readonly #log: Logger;
  readonly #max: number;
  readonly #file: string;
  readonly #exclude: string[];
  /** A started thread no runtime has yet (#prepare). */
  #spare: WorkerHandle | undefined;
  #closed = false;

  constructor(options: RuntimeWorkersOptions) {
    this.#home = options.home;
    this.#log = options.log;
    this.#max = Math.max(1, options.maxRuntimes ?? MAX_RUNTIMES);
    this.#file = options.workerFile ?? workerEntry();
    this.#exclude = frameworkFolders(options.home);
  }

  async answer(event: RuntimeEvent): Promise<Printed> {
    // The session's pinned project (session-root.ts), as the worker's hook will load it; a store
    // that cannot be used is the worker's hook's to refuse with its reason.
    const pin = await pinOfInput(event.agent, event.stdin, this.#home, event.env).catch(
      () => undefined,
    );
    const dir = pin?.from ?? resolve(event.cwd);
    const root = pin?.root ?? findProjectRoot(dir, this.#home);
    const key = `${root}\0${findProjectConfig(dir, root)?.file ?? ''}`;
    let worker = this.#serving(key, event.env);
    if (worker !== undefined && !worker.fresh) {
      this.#retire(worker);
      worker = undefined;
    }
    if (worker === undefined) {
      worker = this.#take();
      worker.adopt(key, root, event.env);
      this.#all.add(worker);
    }
    // Most recently used last.
    this.#live.delete(worker);
    this.#live.add(worker);
    const used = worker;
    const answering = used.answer(
      event.agent,
      event.eventName,
      event.stdin,
      this.#home,
      event.env,
      event.deadlineMs,
    );
    // After the worker counts this event as its own: it is never the one evicted for it.
    this.#evict();
    try {
      const answer = await answering;
      if (this.#notices.empty) return answer;
      // What was logged after earlier answers, told once (late-notices.ts).
      const told = this.#notices.take(key, sessionOf(event.stdin), daemonLogPath(this.#home));
      return { ...answer, stderr: answer.stderr + told };
    } finally {
      if (!used.kept) this.#retire(used);
      else if (used.retired && used.users === 0) this.#end(used);
      this.#evict();
      // The next new runtime's thread, started once this answer is on its way.
      setImmediate(() => this.#prepare());
    }
  }

  /** The projects whose runtimes are kept now. */
  get projects(): string[] {
    return [...new Set([...this.#live].map((w) => w.root))].sort();
  }

  /** How many runtimes are kept now. */
  get size(): number {
    return this.#live.size;
  }

  /** Ends every worker, in use or not (the daemon is exiting), closing their runtimes. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#live.clear();
    if (this.#spare !== undefined) this.#all.add(this.#spare);
    this.#spare = undefined;
    for (const worker of this.#all) this.#end(worker);
    await Promise.all(this.#closing);
  }

  /** A thread for a new runtime: the spare one, started ahead, if it is still alive. */
  #take(): WorkerHandle {
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare?.alive) return spare;
    const worker: WorkerHandle = new WorkerHandle({
      file: this.#file,
      setup: { exclude: this.#exclude },
      log: this.#log,
      // Its key once adopted: a warning of its runtime's own is told to the sessions of its project.
      tell: (message, session) => this.#notices.add(worker.key, session, message),
    });
    return worker;
  }

  /**
   * Starts the spare thread if there is none: it loads the framework meanwhile, so a new runtime
   * (another project or hook environment, a reload) waits only for its own load.
   */
  #prepare(): void {
    if (this.#closed || this.#spare?.alive) return;
    this.#spare = this.#take();
  }

  /** The most recently used worker of project `key` that serves a hook with `env`. */
  #serving(key: string, env: Record<string, string>): WorkerHandle | undefined {
    let found: WorkerHandle | undefined;
    for (const worker of this.#live) if (worker.key === key && worker.serves(env)) found = worker;
    return found;
  }

  #retire(worker: WorkerHandle): void {
    worker.retired = true;
    this.#live.delete(worker);
    if (worker.users === 0) this.#end(worker);
  }

  /** Past the bound, the least recently used workers that answer nothing now end. */
  #evict(): void {
    for (const worker of this.#live) {
      if (this.#live.size <= this.#max) return;
      if (worker.users === 0) this.#retire(worker);
    }
  }

  #end(worker: WorkerHandle): void {
    if (!this.#all.delete(worker)) return;
    const closing = worker.close().finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}

/**
 * The worker's entry as built: bundled into one file (scripts/bundle-cli.mjs), which a new thread
 * loads faster than the ~150 modules it is made of, else as compiled.
 */
function workerEntry(): string {
  const bundled = join(PACKAGE_ROOT, 'dist', 'daemon-worker.bundle.js');
  return existsSync(bundled) ? bundled : join(PACKAGE_ROOT, 'dist/host/daemon/runtime-worker.js');
}

/**
 * Folders whose reads say nothing about a runtime: the framework's own code and the packages it
 * depends on (fixed for the daemon's version, which names its socket), and the transpile cache.
 */
export function frameworkFolders(home: string): string[] {
  const folders = [
    transpileCacheDir(home),
    join(PACKAGE_ROOT, 'dist'),
    join(PACKAGE_ROOT, 'loader'),
    join(PACKAGE_ROOT, 'node_modules'),
  ];
  let dependencies: string[] = [];
  try {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));
    dependencies = Object.keys((manifest.dependencies as object | undefined) ?? {});
  } catch {}
  for (const name of dependencies) {
    // Where Node finds it from the framework: its own node_modules, or one above (hoisted).
    for (let dir = PACKAGE_ROOT; ; dir = dirname(dir)) {
      const folder = join(dir, 'node_modules', name);
      if (existsSync(join(folder, 'package.json'))) {
        folders.push(folder);
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  // And where they really are (a node_modules that is a link: Node reads by the real path).
  return [...new Set([...folders, ...folders.map(realPath)])];
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
