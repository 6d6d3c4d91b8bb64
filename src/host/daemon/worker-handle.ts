import { Worker } from 'node:worker_threads';
import { UnitLocks } from '../../fs/lock-unit.js';
import type { Logger } from '../../log/logger.js';
import type { CommandHookAgent } from '../command-hook/agents.js';
import { failed, lateAnswer, printed, render } from '../command-hook/answers.js';
import { type Claim, newClaim, withdrawClaim } from './event-claims.js';
import type { EnvRead } from './thread-env.js';
import { WatchSet } from './watch-set.js';
import type { FromWorker, ToWorker, WorkerSetup } from './worker-messages.js';

/** How long a worker may take past an event's deadline before it is taken for stuck. */
const STUCK_AFTER_MS = 2_000;
/** How long a worker may take to close its runtime before it is ended anyway. */
const CLOSE_MS = 5_000;
/**
 * The young generation a runtime's thread may grow to (MB). V8 sizes it for throughput (up to 48 MB
 * on 64-bit, about 5 MB once the framework has loaded) and keeps it while the thread idles; a
 * runtime answers one small event at a time, and each MB is paid once per warm runtime.
 */
export const YOUNG_GENERATION_MB = 3;

export interface Printed {
  stdout: string;
  stderr: string;
  exitCode: number;
}

interface Pending {
  agent: CommandHookAgent;
  eventName: string | undefined;
  timer: ReturnType<typeof setTimeout>;
  /** Withdraws it if the thread has not taken it by its `startBy`. */
  untaken?: ReturnType<typeof setTimeout>;
  claim: Claim;
  /** Undefined: withdrawn before the thread took it (event-claims.ts). */
  settle(answer: (Printed & { late: boolean }) | undefined): void;
}

export interface WorkerStart {
  /** The worker's entry module (runtime-worker.ts, built). */
  file: string;
  setup: WorkerSetup;
  /** A thread already started with `file` (first-thread.ts), taken instead of starting one. */
  thread?: Worker;
  /** The daemon's own log, for what the runtime logs outside any event. */
  log: Logger;
  /** A warning logged outside any event, to tell with a later answer (worker-messages.ts `tell`). */
  tell?(message: string, session: string | undefined): void;
  /** A line pointed at the network filter for these domains was made (worker-messages.ts). */
  network?(stateDir: string, domains: string[]): void;
}

let lastId = 0;

/**
 * One runtime worker as the daemon sees it (runtime-worker.ts is the other side): started with
 * the framework loaded and no runtime, then given to one project and hook environment (`adopt`),
 * events sent, answers matched to them, what its load read (a WatchSet, once loaded), and its
 * end. A worker
 * that crashes (an extension's uncaught exception or unhandled rejection, told by the thread
 * naming the extension), dies, or is stuck past an event's deadline (a handler that never yields)
 * answers the pending events its thread took with a failure — a refusal for a tool call, as the
 * hook process would give — and ends; those it never took are withdrawn (event-claims.ts), for
 * the daemon to send to a fresh runtime. Once ended, the owned locks its thread still held (the
 * audit log's, a session's turn lock) are removed, as a process's end releases them: they name
 * the daemon's pid, which lives on, so no waiter would ever take them over.
 */
export class WorkerHandle {
  /** Events being answered by it now. */
  users = 0;
  /** Replaced, evicted or failed: it takes no new event and ends once its last one is answered. */
  retired = false;
  /** What it answers for, once adopted (runtime-workers.ts): its key and project root. */
  key = '';
  root = '';
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  /** The owned locks its thread holds (lock-unit.ts): removed once it has ended. */
  readonly #locks = new UnitLocks();
  readonly #ended: Promise<void>;
  #watch: WatchSet | undefined;
  /** The environment it adopted (its load's), and the variables its load read. */
  #env: Record<string, string> = {};
  #envRead: EnvRead | undefined;
  #keep = true;
  #exited = false;
  #closing: Promise<void> | undefined;
  #stuck = false;
  readonly #log: Logger;

  constructor(start: WorkerStart) {
    this.#log = start.log;
    this.#worker =
      start.thread ??
      new Worker(start.file, {
        workerData: start.setup,
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
    this.#worker.on('message', (message: FromWorker) => {
      if (message.type === 'loaded') {
        this.#watch = new WatchSet(message.records);
        this.#envRead = message.env;
        this.#keep &&= message.keep;
      } else if (message.type === 'log') {
        start.log[message.level](message.message);
        if (message.tell !== undefined) start.tell?.(message.message, message.tell.session);
      } else if (message.type === 'network') {
        start.network?.(message.stateDir, message.domains);
      } else if (message.type === 'lock') {
        if (message.held) this.#locks.taking(message.path, message.text);
        else this.#locks.released(message.path, message.text);
      } else if (message.type === 'crashed') {
        const line = `hermes daemon: the runtime of ${this.root || 'no project'} failed: ${message.why}`;
        start.log.error(message.stack === undefined ? line : `${line}\n${message.stack}`);
        // After its answers (none pending): told with a later one, as the hook process tells it
        // on stderr after its answer.
        if (this.#pending.size === 0) start.tell?.(line, undefined);
        // Its pending events are refused with the reason, and it is retired (not kept).
        this.#fail(message.why);
      } else {
        const { type: _, id, ...answer } = message;
        this.#settle(id, answer);
      }
    });
    this.#worker.on('error', (error) => {
      start.log.error(
        `hermes daemon: the runtime of ${this.root || 'no project'} failed: ${error}`,
      );
      this.#fail(`the project's runtime failed: ${error}`);
    });
    this.#ended = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        this.#exited = true;
        this.#keep = false;
        // What it held, released as its end would have released it in a process of its own.
        for (const path of this.#locks.removeAll()) {
          start.log.warn(
            `hermes daemon: the runtime of ${this.root || 'no project'} ended holding the lock ${path}; removed`,
          );
        }
        this.#fail("the project's runtime ended before it answered");
        resolve();
      });
    });
  }

  /**
   * Gives it to the project `root` (`key`), its `process.env` becoming `env` — the environment of
   * the hook that asks — before it loads anything of the project.
   */
  adopt(key: string, root: string, env: Record<string, string>): void {
    this.key = key;
    this.root = root;
    this.#env = env;
    const adopt: ToWorker = { type: 'adopt', env };
    this.#worker.postMessage(adopt);
  }

  /**
   * Loads its runtime now, for `place` (the folder and pinned root its events' hooks will ask for)
   * in its adopted environment, with no event to answer (runtime-workers.ts `warm`).
   */
  warm(place: { cwd: string; root?: string }, home: string): void {
    const warm: ToWorker = { type: 'warm', ...place, home, env: this.#env };
    if (!this.#exited) this.#worker.postMessage(warm);
  }

  /** Whether it can still be adopted (a spare that has not died meanwhile). */
  get alive(): boolean {
    return !this.#exited;
  }

  /**
   * Whether it may answer a hook whose environment is `env`: one whose values are those its
   * runtime was loaded with, of every variable the load read, that sets the variables the load
   * asked about, and whose variables are the same ones if the load listed them (the whole
   * environment the same, until it has loaded). The hook's own values are what its event reads.
   */
  serves(env: Record<string, string>): boolean {
    const read = this.#envRead;
    const same = (name: string) => env[name] === this.#env[name];
    const names = Object.keys(env);
    const sameNames =
      names.length === Object.keys(this.#env).length && names.every((n) => n in this.#env);
    if (read === undefined) return sameNames && names.every(same);
    const sameSet = (name: string) => name in env === name in this.#env;
    return read.values.every(same) && read.present.every(sameSet) && (!read.names || sameNames);
  }

  /**
   * Whether it may answer another event: its load (if done) neither failed nor had an extension
   * fail, it answered nothing late, and nothing its load read has changed since.
   */
  get fresh(): boolean {
    return !this.retired && this.#keep && !(this.#watch?.changed() ?? false);
  }

  /** Whether its runtime has loaded: its thread reads its port promptly from then on. */
  get loaded(): boolean {
    return this.#watch !== undefined;
  }

  /**
   * Whether its thread is stuck: it has not taken a probe within `withinMs` (a handler that never
   * yields). A stuck worker is not kept.
   */
  stuck(withinMs: number): Promise<boolean> {
    const claim = newClaim();
    const probe: ToWorker = { type: 'probe', claim };
    if (!this.#exited) this.#worker.postMessage(probe);
    return new Promise((resolve) => {
      setTimeout(() => {
        const stuck = withdrawClaim(claim);
        if (stuck) this.#keep = false;
        resolve(stuck);
      }, withinMs);
    });
  }

  /** Whether what it loaded may be kept (false once a load failure or a late answer is known). */
  get kept(): boolean {
    return this.#keep;
  }

  /**
   * The event answered by the worker, or by a failure if it is stuck past `deadlineMs`; undefined
   * when the thread never took it (event-claims.ts): it ended or failed first, or had not taken it
   * by `startBy` (epoch ms; its thread busy in a handler that never yields, and so not kept).
   */
  answer(
    agent: CommandHookAgent,
    eventName: string | undefined,
    stdin: string,
    home: string,
    env: Record<string, string>,
    deadlineMs: number,
    startBy = Number.POSITIVE_INFINITY,
  ): Promise<Printed | undefined> {
    const id = ++lastId;
    const claim = newClaim();
    this.users++;
    return new Promise<(Printed & { late: boolean }) | undefined>((settle) => {
      const timer = setTimeout(() => {
        this.#settle(id, { ...printed(lateAnswer(agent, eventName, deadlineMs)), late: true });
        if (!this.#exited && !this.#stuck) {
          this.#stuck = true;
          // Logged (doctor shows it): what its observers held in memory goes with it.
          this.#log.error(
            `hermes daemon: the runtime of ${this.root || 'no project'} is ended, stuck past an event's deadline (a handler that never yields); what it had not yet written (audit lines, spans) is lost with it`,
          );
        }
        void this.#worker.terminate();
      }, deadlineMs + STUCK_AFTER_MS);
      const untaken = Number.isFinite(startBy)
        ? setTimeout(() => {
            if (!withdrawClaim(claim)) return;
            this.#keep = false;
            this.#settle(id, undefined);
          }, startBy - Date.now())
        : undefined;
      this.#pending.set(id, { agent, eventName, timer, untaken, claim, settle });
      const event: ToWorker = { type: 'event', id, agent: agent.name, stdin, home, env, claim };
      if (this.#exited) this.#fail("the project's runtime ended before it answered");
      else this.#worker.postMessage(event);
    }).then((answer) => {
      this.users--;
      if (answer === undefined) return undefined;
      const { late, ...printedAnswer } = answer;
      // Past the deadline the hook process would have exited, ending what was still running.
      if (late) this.#keep = false;
      return printedAnswer;
    });
  }

  /** Closes the runtime (observers flush) and ends the worker; ended anyway after CLOSE_MS. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const close: ToWorker = { type: 'close' };
      this.#worker.postMessage(close);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_MS);
      });
      await Promise.race([this.#ended, late]);
      clearTimeout(timer);
      await this.#worker.terminate();
      await this.#ended;
    })();
    return this.#closing;
  }

  #settle(id: number, answer: (Printed & { late: boolean }) | undefined): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    clearTimeout(pending.untaken);
    pending.settle(answer);
  }

  /** Its pending events refused with `why`, but those its thread never took: withdrawn. */
  #fail(why: string): void {
    this.#keep = false;
    for (const [id, { agent, eventName, claim }] of this.#pending) {
      if (withdrawClaim(claim)) this.#settle(id, undefined);
      else {
        this.#settle(id, {
          ...printed(render(agent, eventName, failed(agent, eventName, why))),
          late: false,
        });
      }
    }
  }
}
