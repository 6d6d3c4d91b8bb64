import { FRAMEWORK_NAME } from '../chain/outcome.js';
import type { Logger } from '../log/logger.js';
import type { Runtime } from '../runtime/runtime.js';
import { crashReason, type ProcessCrash, stackOf } from './process-crash.js';

/**
 * Why a runtime of a long-running host (the stdio bridge, the MCP proxy) can decide nothing more,
 * and whose code it was.
 */
export interface RuntimeCrash {
  /** One line for an answer: the extension, and what it threw or called. */
  reason: string;
  /** The extension named (blockedBy of a refusal); the framework's name when none is known. */
  blamed: string;
}

/**
 * One runtime the host loaded, and whether an extension's code crashed it: an uncaught
 * exception, an unhandled rejection or a call to `process.exit` (src/host/process-crash.ts) while
 * it was the runtime serving.
 */
export class ServedRuntime {
  crash: RuntimeCrash | undefined;
  /** What each call in flight does at a crash; removed as each settles, so none is held for ever. */
  readonly #inFlight = new Set<(crash: RuntimeCrash) => void>();

  constructor(readonly runtime: Promise<Runtime>) {}

  /**
   * What `decide` settles with, or, once this runtime crashes, `refuse(crash)` — at once for a
   * call made after the crash, and for one in flight when it comes: whatever its chain would
   * still answer was decided by a runtime whose state is no longer known, and is dropped.
   */
  decide<T>(decide: () => Promise<T>, refuse: (crash: RuntimeCrash) => T): Promise<T> {
    if (this.crash !== undefined) return Promise.resolve(this.crash).then(refuse);
    return new Promise<T>((resolve, reject) => {
      const crashed = (crash: RuntimeCrash) => {
        try {
          resolve(refuse(crash));
        } catch (error) {
          reject(error);
        }
      };
      this.#inFlight.add(crashed);
      let work: Promise<T>;
      try {
        work = decide();
      } catch (error) {
        work = Promise.reject(error);
      }
      work.then(resolve, reject).finally(() => this.#inFlight.delete(crashed));
    });
  }

  fail(crash: RuntimeCrash): void {
    this.crash = crash;
    for (const crashed of this.#inFlight) crashed(crash);
    this.#inFlight.clear();
  }
}

/**
 * A long-running host's runtimes (the bridge's, the MCP proxy's): the one serving, and, once an
 * extension crashes it, one loaded afresh for the next turn. A crash fails closed what the
 * crashed runtime was deciding (the calls in flight, and every later call of the turns open in
 * it, whose state went with it: the host refuses them, src/host/bridge/methods.ts), is logged
 * naming the extension, and never ends the host: the next turn loads the extensions again, so it
 * is decided by a working runtime. The crashed runtime is closed (its extensions flush) once it
 * is replaced, or when the host ends.
 */
export class ServedRuntimes {
  #serving: ServedRuntime;
  readonly #closing: Promise<void>[] = [];

  constructor(
    private readonly load: () => Promise<Runtime>,
    private readonly logger: Logger,
    /** How the host names itself in the log (`bridge`, `mcp proxy`). */
    private readonly host: string,
  ) {
    this.#serving = this.#started();
  }

  /** The runtime serving now, crashed or not: a failed load is answered from it, as ever. */
  get serving(): ServedRuntime {
    return this.#serving;
  }

  /** The runtime for a new turn: the serving one, or, if it crashed, one loaded afresh now. */
  fresh(): ServedRuntime {
    if (this.#serving.crash === undefined) return this.#serving;
    this.#closing.push(closeQuietly(this.#serving));
    this.#serving = this.#started();
    this.logger.info(`${this.host}: the extensions are loaded afresh for the next turn`);
    return this.#serving;
  }

  /**
   * An extension's code crashed the process's event loop: the serving runtime fails. One that
   * comes after it failed (the same timer again) is only logged, as is the stack.
   */
  crashed(crash: ProcessCrash): void {
    const reason = crashReason(crash);
    const stack = stackOf(crash.error);
    const serving = this.#serving;
    if (serving.crash !== undefined) {
      this.logger.error(`${this.host}: again, after its runtime failed: ${reason}`);
      return;
    }
    serving.fail({ reason, blamed: crash.extension ?? FRAMEWORK_NAME });
    const line = `${this.host}: ${reason}; the calls of the turns open now are refused, and the next turn loads the extensions afresh`;
    this.logger.error(stack === undefined ? line : `${line}\n${stack}`);
  }

  /** Closes every runtime, the serving one and those crashed and replaced; never rejects. */
  async close(): Promise<void> {
    await Promise.all([...this.#closing, closeQuietly(this.#serving)]);
  }

  #started(): ServedRuntime {
    const runtime = this.load();
    runtime.catch(() => {}); // a failed load is reported to every request; the host decides
    return new ServedRuntime(runtime);
  }
}

async function closeQuietly(served: ServedRuntime): Promise<void> {
  const runtime = await served.runtime.catch(() => undefined);
  await runtime?.close();
}
