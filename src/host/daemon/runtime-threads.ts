import type { Worker } from 'node:worker_threads';
import { hermesHome } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import { takeFirstThread } from './first-thread.js';
import type { LateNotices } from './late-notices.js';
import { NetworkFilters } from './network-filters.js';
import type { RuntimeWorkersOptions } from './runtime-event.js';
import { frameworkFolders, workerEntry } from './worker-entry.js';
import { WorkerHandle, YOUNG_GENERATION_MB } from './worker-handle.js';

/**
 * The threads the hook daemon's runtimes run in (worker-handle.ts), as runtime-workers.ts takes
 * them: each made with the framework's own folders left out of what its load records, what it
 * logs after an answer kept for the sessions of its project (late-notices.ts), and the sandbox
 * network filters its lines point at relayed to the daemon, which runs them (network-filters.ts):
 * a filter outlives the runtime that first asked for it. One thread is kept started ahead, with
 * the framework loaded and no runtime, for the next runtime to be made; the first is the one
 * `hermes daemon run` started as its process started (first-thread.ts), when there is one.
 */
export class RuntimeThreads {
  readonly #log: Logger;
  readonly #file: string;
  readonly #exclude: string[];
  readonly #notices: LateNotices;
  readonly #filters: NetworkFilters;
  readonly #home: string;
  /** A started thread no runtime has yet (`prepare`). */
  #spare: WorkerHandle | undefined;
  #closed = false;

  /** `notices`: where a runtime's warnings logged after its answers are kept (late-notices.ts). */
  constructor(
    options: Pick<RuntimeWorkersOptions, 'home' | 'log' | 'workerFile'>,
    notices: LateNotices,
  ) {
    this.#log = options.log;
    this.#file = options.workerFile ?? workerEntry();
    this.#exclude = frameworkFolders(options.home);
    this.#notices = notices;
    this.#filters = new NetworkFilters(options.log);
    this.#home = options.home;
  }

  /**
   * A thread for a new runtime: the spare one, started ahead, if it is still alive; else the
   * process's first thread, not taken before (taken only now: a daemon that does not listen, its
   * place taken by another, leaves it unreferenced, and exits).
   */
  take(): WorkerHandle {
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare?.alive) return spare;
    return this.#first() ?? this.#handle();
  }

  /** The process's first thread (first-thread.ts), once, when it is what this would start. */
  #first(): WorkerHandle | undefined {
    const thread = takeFirstThread(this.#file, YOUNG_GENERATION_MB, this.#home === hermesHome());
    return thread === undefined ? undefined : this.#handle(thread);
  }

  /** A new thread, or `thread` if given (the first one), as the daemon sees it. */
  #handle(thread?: Worker): WorkerHandle {
    const worker: WorkerHandle = new WorkerHandle({
      file: this.#file,
      ...(thread === undefined ? {} : { thread }),
      setup: { exclude: this.#exclude },
      log: this.#log,
      // Its key once adopted: a warning of its runtime's own is told to the sessions of its project.
      tell: (message, session) => this.#notices.add(worker.key, session, message),
      network: (stateDir, domains) => this.#filters.want(stateDir, domains),
    });
    return worker;
  }

  /**
   * Starts the spare thread if there is none: it loads the framework meanwhile, so a new runtime
   * (another project or hook environment, a reload) waits only for its own load.
   */
  prepare(): void {
    if (this.#closed || this.#spare?.alive) return;
    this.#spare = this.take();
  }

  /**
   * The spare thread, kept no more (its caller ends it), or the first thread if none was taken;
   * undefined when there is neither.
   */
  drop(): WorkerHandle | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    return spare ?? this.#first();
  }

  /**
   * No thread is started ahead any more and the network filters end (the daemon is exiting); the
   * spare thread, if any, is returned for its caller to end.
   */
  close(): WorkerHandle | undefined {
    this.#closed = true;
    this.#filters.close();
    return this.drop();
  }
}
