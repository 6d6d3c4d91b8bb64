import type { Logger } from '../../log/logger.js';
import { daemonLogPath } from './daemon-log.js';
import { LateNotices } from './late-notices.js';
import type { DaemonStatus } from './protocol.js';
import { sessionOf } from './requests.js';
import { type RuntimeEvent, type RuntimeWorkersOptions, runtimePlace } from './runtime-event.js';
import {
  type EvictionLimits,
  MAX_RSS_MB,
  RUNTIME_IDLE_MS,
  RuntimeEviction,
} from './runtime-eviction.js';
import { RuntimeQueue } from './runtime-queue.js';
import { RuntimeThreads } from './runtime-threads.js';
import type { Printed, WorkerHandle } from './worker-handle.js';

/**
 * How many runtimes are kept at most (`HERMES_DAEMON_MAX_RUNTIMES`), whatever their memory: a
 * bound on threads. The memory cap (runtime-eviction.ts) is what usually decides.
 */
export const MAX_RUNTIMES = 16;
/**
 * How long a loaded runtime's thread may leave an event it was sent untaken before it is taken for
 * stuck (a handler that never yields): taking a message is well under a millisecond otherwise.
 */
export const STALL_MS = 2_000;
/**
 * How many runtimes an event is sent to at most: when a fresh one does not take it either (each
 * new thread dies at once), runtimes are failing as such, and its client answers it in-process.
 */
const MAX_SENDS = 3;

/**
 * The hook daemon's runtimes, each in a worker thread of its own (worker-handle.ts), for what a
 * fresh hook process would load from: the project root pinned for the event's session (or found
 * from its `cwd` when it names none) and the project config found from there, and the environment
 * of the hook that asks. A runtime serves a hook when the values of every environment variable its
 * load read are the hook's too (thread-env.ts notes them; until it has loaded, the whole
 * environment must be the same), and each event is answered with its own hook's `process.env`: an
 * extension reads the asking hook's variables, in `setup` as in its handlers, while hooks whose
 * environments differ only in what loading never read (an agent's session id) share one warm
 * runtime. The project's trust record is part of what a runtime was built from: its load recorded
 * reading it, each file stamped before it was read (read-recorder.ts).
 *
 * Before each event the worker's recorded reads are checked (watch-set.ts); if any changed, or its
 * load failed, or an extension failed to load or set up, or it answered late, a new worker loads
 * the runtime afresh and the old one ends once the events using it are answered — so no module
 * cache of an old load can answer, and nothing failed is kept. At most `maxRuntimes` workers live,
 * whatever the load: a new one takes the place of the least recently used idle one, and when every
 * one is answering, calls that need another wait for a place, given fairly (#wake), while the busy
 * ones are probed for a stuck thread (#probe); no call waits more than half of what its client has
 * left. An event a worker never took (its thread stuck, crashed or ended first) is sent to a fresh
 * one; one it took, never (event-claims.ts). Threads are made, one kept started ahead, by
 * runtime-threads.ts. A warning a runtime logs after an answer is told once with a later one
 * (late-notices.ts).
 */
export class RuntimeWorkers {
  /** The workers that take events, least recently used first. */
  readonly #live = new Set<WorkerHandle>();
  /** Every worker not ended yet, retired ones included. */
  readonly #all = new Set<WorkerHandle>();
  readonly #closing = new Set<Promise<void>>();
  readonly #notices = new LateNotices();
  readonly #threads: RuntimeThreads;
  /** Calls waiting for a place for a new runtime, when every one is answering. */
  readonly #queue = new RuntimeQueue();
  /** Runtimes being probed for stuck (#probe). */
  readonly #probing = new Set<WorkerHandle>();
  readonly #home: string;
  readonly #log: Logger;
  readonly #max: number;
  #closed = false;
  /** Idle runtimes let go: after a while, and past the memory cap. */
  readonly #eviction: RuntimeEviction<WorkerHandle>;
  readonly #limits: EvictionLimits;

  constructor(options: RuntimeWorkersOptions) {
    this.#home = options.home;
    this.#log = options.log;
    this.#max = Math.max(1, options.maxRuntimes ?? MAX_RUNTIMES);
    this.#threads = new RuntimeThreads(options, this.#notices);
    this.#limits = {
      idleMs: options.limits?.idleMs ?? RUNTIME_IDLE_MS,
      maxRssBytes: options.limits?.maxRssBytes ?? MAX_RSS_MB * 1_048_576,
    };
    this.#eviction = new RuntimeEviction(this.#limits, {
      live: () => this.#live,
      letGo: (worker, why) => this.#letGo(worker, why),
      ending: () => this.#closing.size > 0,
      rss: () => process.memoryUsage.rss(),
    });
    // The daemon's first thread (first-thread.ts), started with its process: one that no
    // runtime has taken within the idle time goes, as the spare goes with the last runtime.
    setTimeout(() => {
      if (this.#live.size === 0) this.#endSpare();
    }, this.#limits.idleMs).unref();
  }

  /**
   * The event's answer from a runtime of its project and hook environment; undefined when it was
   * not started (no runtime took it in time, or its client has gone): its client answers it
   * in-process. An event a runtime did not take (its thread stuck, or ended first) is sent to a
   * fresh one while there is time; one it took is never sent again (event-claims.ts).
   */
  async answer(event: RuntimeEvent): Promise<Printed | undefined> {
    const { key, root } = await runtimePlace(event, this.#home);
    const received = Date.now();
    const until = Math.min(event.until ?? Number.POSITIVE_INFINITY, received + event.deadlineMs);
    const startBy = received + (until - received) / 2;
    for (let sends = 1; sends <= MAX_SENDS; sends++) {
      const used = await this.#workerFor(key, root, event.env, startBy);
      if (used === undefined) return undefined;
      if (event.gone?.() || Date.now() > startBy) {
        this.#done(used);
        return undefined;
      }
      // A loaded runtime's thread takes an event at once unless it is stuck. One still starting or
      // loading has what the event's deadline leaves it (its stuck timer ends it past that).
      const takeBy = used.loaded ? Date.now() + STALL_MS : Number.POSITIVE_INFINITY;
      const answering = used.answer(
        event.agent,
        event.eventName,
        event.stdin,
        this.#home,
        event.env,
        // What waiting for a runtime took is not the chains' to have.
        event.deadlineMs - (Date.now() - received),
        takeBy,
      );
      // After the worker counts this event as its own: it is never the one evicted for it.
      this.#evict();
      let answer: Printed | undefined;
      try {
        answer = await answering;
      } finally {
        this.#done(used);
      }
      if (answer !== undefined) {
        if (this.#notices.empty) return answer;
        // What was logged after earlier answers, told once (late-notices.ts).
        const told = this.#notices.take(key, sessionOf(event.stdin), daemonLogPath(this.#home));
        return { ...answer, stderr: answer.stderr + told };
      }
      if (sends < MAX_SENDS) {
        this.#log.info(
          `hermes daemon: a ${event.agent.name} ${event.eventName ?? 'event'} not taken by the runtime of ${root}: sent to a fresh one`,
        );
      }
    }
    return undefined;
  }

  /**
   * Starts loading, in a runtime of its own, the runtime that will answer the events of the
   * session `event` starts (warm.ts), with no event sent to it: the session's events then wait
   * for that load rather than starting another. Nothing is done when a fresh runtime of its
   * project serves its environment already, or no place is free now: it never waits for one.
   */
  async warm(event: Pick<RuntimeEvent, 'agent' | 'stdin' | 'cwd' | 'env'>): Promise<void> {
    const { key, root, place } = await runtimePlace(event, this.#home);
    const serving = this.#serving(key, event.env);
    if (this.#closed || serving?.fresh) return;
    if (serving !== undefined) this.#retire(serving);
    if (!this.#room()) return;
    const worker = this.#threads.take();
    worker.adopt(key, root, event.env);
    this.#all.add(worker);
    this.#live.add(worker);
    worker.warm(place, this.#home);
    setImmediate(() => this.#threads.prepare());
  }

  /**
   * The worker that answers project `key` for a hook with `env`: its fresh runtime, else a new
   * one once there is a place for it; undefined when there is none by `startBy`.
   */
  async #workerFor(
    key: string,
    root: string,
    env: Record<string, string>,
    startBy: number,
  ): Promise<WorkerHandle | undefined> {
    for (;;) {
      if (this.#closed) return undefined;
      let worker = this.#serving(key, env);
      if (worker !== undefined && !worker.fresh) {
        this.#retire(worker);
        worker = undefined;
      }
      if (worker === undefined && this.#room()) {
        worker = this.#threads.take();
        worker.adopt(key, root, env);
        this.#all.add(worker);
      }
      if (worker !== undefined) {
        // Most recently used last.
        this.#live.delete(worker);
        this.#live.add(worker);
        this.#eviction.busy(worker);
        return worker;
      }
      // Every place is taken by a runtime answering now: wait for one, then look again (another
      // call may have made this project's runtime meanwhile).
      this.#probe();
      const placed = this.#queue.wait(key, startBy);
      this.#wake();
      if (!(await placed)) return undefined;
      // Its place, kept for it since it was given, is taken below before anything else runs.
      this.#queue.take();
    }
  }

  /** After an event of `used`: retired if it failed, ended if retired and idle; places given. */
  #done(used: WorkerHandle): void {
    if (!used.kept) this.#retire(used);
    else if (used.retired && used.users === 0) this.#end(used);
    else this.#eviction.idle(used);
    this.#evict();
    this.#eviction.check();
    this.#wake();
    // The next new runtime's thread, started once this answer is on its way.
    setImmediate(() => this.#threads.prepare());
  }

  /**
   * Whether a new runtime may start now: fewer than the bound live, or the least recently used
   * idle one retired to make room. Places given to waiting calls are kept for them.
   */
  #room(): boolean {
    const given = this.#queue.given;
    if (this.#live.size + given < this.#max) return true;
    for (const worker of this.#live) {
      if (worker.users === 0) {
        this.#retire(worker);
        return this.#live.size + given < this.#max;
      }
    }
    return false;
  }

  /** Probes each loaded runtime in use, once at a time: a stuck one is retired. */
  #probe(): void {
    for (const worker of this.#live) {
      if (worker.users === 0 || !worker.loaded || this.#probing.has(worker)) continue;
      this.#probing.add(worker);
      void worker.stuck(STALL_MS).then((stuck) => {
        this.#probing.delete(worker);
        if (stuck && this.#live.has(worker)) {
          this.#log.warn(
            `hermes daemon: the runtime of ${worker.root} is stuck (its thread takes no event): its place is given to another`,
          );
          this.#retire(worker);
        }
        this.#wake();
        if (this.#queue.waiting > 0) this.#probe();
      });
    }
  }

  /** Places there are, given to waiting calls (runtime-queue.ts). */
  #wake(): void {
    const held = (key: string) => [...this.#live].filter((w) => w.key === key).length;
    this.#queue.wake(() => this.#room(), held);
  }

  /** What `hermes daemon status` shows of the runtimes (protocol.ts): `warm` least recently used first. */
  get status(): Pick<DaemonStatus, 'projects' | 'runtimes' | 'warm' | 'limits'> {
    const live = [...this.#live];
    const { idleMs: runtimeIdleMs, maxRssBytes: maxRss } = this.#limits;
    return {
      projects: [...new Set(live.map((w) => w.root))].sort(),
      runtimes: live.length,
      warm: live.map((worker) => {
        const idleMs = this.#eviction.idleFor(worker);
        return {
          project: worker.root,
          busy: worker.users,
          ...(idleMs === undefined ? {} : { idleMs }),
        };
      }),
      limits: { runtimeIdleMs, maxRss, maxRuntimes: this.#max },
    };
  }

  /** Ends every worker, in use or not (the daemon is exiting), closing their runtimes. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#eviction.stop();
    this.#queue.close();
    const spare = this.#threads.close();
    this.#live.clear();
    if (spare !== undefined) this.#all.add(spare);
    for (const worker of this.#all) this.#end(worker);
    await Promise.all(this.#closing);
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
    this.#eviction.busy(worker);
    if (worker.users === 0) this.#end(worker);
  }

  /**
   * An idle runtime let go (runtime-eviction.ts says when): closed as a replaced one is, its
   * observers flushed. With the last one goes the spare thread: a daemon at rest holds no
   * framework copy; the next event starts one again.
   */
  #letGo(worker: WorkerHandle, why: string): void {
    if (worker.users > 0 || !this.#live.has(worker)) return;
    this.#log.info(`hermes daemon: the runtime of ${worker.root} let go: ${why}`);
    this.#retire(worker);
    if (this.#live.size === 0) this.#endSpare();
    this.#wake();
  }

  /** The spare thread, if any, ended: a daemon at rest holds no framework copy. */
  #endSpare(): void {
    const spare = this.#threads.drop();
    if (spare === undefined) return;
    this.#all.add(spare);
    this.#end(spare);
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
    const closing = worker.close().finally(() => {
      this.#closing.delete(closing);
      // Its memory is back: the cap is measured again.
      if (!this.#closed) this.#eviction.check();
    });
    this.#closing.add(closing);
  }
}
