import type { AnyHookDeclaration, TurnContext } from '../hooks/declaration.js';
import type { RememberScope } from '../hooks/remember-scope.js';
import { type AnyHookResult, type Metadata, PASS } from '../hooks/results.js';
import { type ChainLimit, endPastDeadline } from './chain-deadline.js';
import { blockChain, type ChainState, chainOutcome, tellStep, traceEntry } from './chain-state.js';
import { describeThrown, HandlerTimeoutError } from './errors.js';
import type { RegisteredHandler } from './handler.js';
import { failHandler, reportHandlerError, runnerBroken } from './handler-failure.js';
import { type ChainOutcome, EMPTY_METADATA, type OnTrace, type TraceEntry } from './outcome.js';
import { type ReadResult, readResult } from './read-result.js';
import { shadowDecision } from './shadow.js';
import { releaseIfIdle, unwatch, type Watched, watch } from './watchdog.js';

export const now = () => performance.now();
/** What `loop` returns when it stopped to wait for an async handler. */
export const WAITING = Symbol('waiting');
/** `then` of native promises: a result whose `then` is this is awaited with one call of it. */
const NATIVE_THEN = Promise.prototype.then;

/**
 * One run of one chain. While it waits for an async handler it is also that handler's entry in
 * the timeout watchdog; `waitId` tells a settlement that arrives after a timeout to go away.
 * Only the path of a handler that passes, rewrites or blocks is here: a failure, a shadowed
 * decision and the chain's deadline are decided in their own files, called when they happen.
 */
export class ChainRun implements ChainState, Watched {
  changed = false;
  blocked = false;
  message = '';
  blockedBy = '';
  askMessage = '';
  askedBy = '';
  askRemember: RememberScope | undefined = undefined;
  metadata: Metadata = EMPTY_METADATA;
  resolve: ((outcome: ChainOutcome<unknown>) => void) | undefined = undefined;
  deadline = 0;
  watching = false;
  previousWait: Watched | undefined = undefined;
  nextWait: Watched | undefined = undefined;
  waitId = 0;
  waitStart = 0;

  constructor(
    readonly decl: AnyHookDeclaration,
    readonly handlers: readonly RegisteredHandler[],
    readonly input: unknown,
    readonly turn: TurnContext,
    readonly onTrace: OnTrace | undefined,
    /** What handlers see so far, and the event that shows it. */
    public value: unknown,
    public event: unknown,
    /** The entries of the handlers that ran before it was made (the plain run's). */
    readonly trace: TraceEntry[],
    /** The handler to run next. */
    public index: number,
    readonly limit: ChainLimit | undefined,
    /** When the whole chain must have decided (chain-deadline.ts); never, without a limit. */
    readonly chainEnd: number,
  ) {}

  /** Runs handlers from `index` on, synchronously, until the chain ends or a handler is async. */
  loop(start: number): ChainOutcome<unknown> | typeof WAITING {
    const handlers = this.handlers;
    for (; this.index < handlers.length; this.index++) {
      // `start` is when the last handler ended: nothing starts past the chain's deadline.
      if (start >= this.chainEnd) {
        return endPastDeadline(this, this.limit as ChainLimit, undefined, 0);
      }
      const handler = handlers[this.index] as RegisteredHandler;
      // One field read for a handler without `when`: matching stays off its path.
      if (handler.when !== undefined) {
        let matched: boolean;
        try {
          matched = handler.when(this.event);
        } catch (error) {
          const end = now();
          const reason = `its \`when\` pattern failed: ${describeThrown(error)}`;
          if (failHandler(this, handler, reason, end - start, error)) return chainOutcome(this);
          start = end;
          continue;
        }
        if (!matched) continue;
      }
      let result: unknown;
      try {
        result = (handler.fn as (event: unknown) => unknown)(this.event);
      } catch (error) {
        const next = this.threw(handler, error, start);
        if (typeof next !== 'number') return next;
        start = next;
        continue;
      }
      const next = this.called(handler, result, start);
      if (typeof next !== 'number') return next;
      start = next;
    }
    return chainOutcome(this);
  }

  /**
   * The rest of the chain after the handler at `index` threw, or returned `result`, having
   * started at `start`: where the plain run (run-chain.ts) hands a chain over.
   */
  after(
    thrown: boolean,
    error: unknown,
    result: unknown,
    start: number,
    /** When it ended, if that was already read (a pass that came too late); else 0. */
    ended: number,
  ): ChainOutcome<unknown> | typeof WAITING {
    const handler = this.handlers[this.index] as RegisteredHandler;
    const next = thrown
      ? this.threw(handler, error, start)
      : this.called(handler, result, start, ended);
    if (typeof next !== 'number') return next;
    this.index++;
    return this.loop(next);
  }

  /** A handler that threw: when the next one starts, or the chain's outcome if this ends it. */
  private threw(
    handler: RegisteredHandler,
    error: unknown,
    start: number,
  ): number | ChainOutcome<unknown> {
    const end = now();
    if (failHandler(this, handler, describeThrown(error), end - start, error)) {
      return chainOutcome(this);
    }
    return end;
  }

  /**
   * What a handler's result does: when the next handler starts, or the chain's outcome if this
   * ends it, or WAITING for an async handler.
   */
  private called(
    handler: RegisteredHandler,
    result: unknown,
    start: number,
    ended = 0,
  ): number | ChainOutcome<unknown> | typeof WAITING {
    // The shared `pass()` is an object, but not a thenable: no `then` to look up.
    if (result !== PASS && result !== null && typeof result === 'object') {
      // `then` is read once, here; a getter or a proxy trap may throw.
      let then: unknown;
      let failure: string | undefined;
      try {
        then = (result as PromiseLike<unknown>).then;
        if (typeof then === 'function' && this.wait(handler, result, then, start)) {
          return WAITING;
        }
      } catch (error) {
        failure = `${typeof then === 'function' ? 'returned a promise that cannot be awaited' : 'returned a result that cannot be read'}: ${describeThrown(error)}`;
      }
      if (failure !== undefined) {
        const end = now();
        if (failHandler(this, handler, failure, end - start, undefined)) return chainOutcome(this);
        return end;
      }
    }
    const end = ended === 0 ? now() : ended;
    const durationMs = end - start;
    // A synchronous handler that ends past the chain's deadline ends it; its result is discarded.
    if (end > this.chainEnd) {
      return endPastDeadline(this, this.limit as ChainLimit, handler, durationMs);
    }
    if (durationMs > handler.timeoutMs) {
      // A synchronous handler cannot be interrupted, but running past its limit is still a
      // failure: its result is discarded so a slow guard behaves the same sync or async.
      const reason = `ran ${Math.round(durationMs)} ms, past its timeoutMs of ${handler.timeoutMs}`;
      if (failHandler(this, handler, reason, durationMs, undefined)) return chainOutcome(this);
      return end;
    }
    // A plain pass, the most common result, is recorded here rather than through `apply`.
    if (result === undefined || result === null || result === PASS) {
      this.passed(handler, durationMs);
    } else if (this.apply(handler, result, durationMs)) return chainOutcome(this);
    return end;
  }

  /**
   * Awaits an async handler once: one `then`, and a watchdog entry instead of a timer. Returns
   * true once waiting; throws (before anything is watched) when the thenable cannot be awaited.
   *
   * A native promise is awaited with the `then` already read, which may still throw at once (a
   * `constructor` getter that throws). A foreign thenable's `then` is called inside a promise
   * executor, which turns its throw into a rejection and any synchronous callback into a later
   * settlement: `resolve` is always attached before `resume` can run, and `then` is read once.
   */
  private wait(handler: RegisteredHandler, pending: object, then: unknown, start: number): true {
    const id = ++this.waitId;
    const onSettled = (result: unknown) => this.settled(id, result, false);
    const onFailed = (error: unknown) => this.settled(id, error, true);
    try {
      if (then === NATIVE_THEN) {
        NATIVE_THEN.call(pending as Promise<unknown>, onSettled, onFailed);
      } else {
        new Promise((resolve, reject) => {
          (then as PromiseLike<unknown>['then']).call(pending, resolve, reject);
        }).then(onSettled, onFailed);
      }
    } catch (error) {
      this.waitId++; // a callback registered before the throw must find its wait gone
      throw error;
    }
    this.waitStart = start;
    // Its own timeout, or the chain's deadline when that comes first.
    const deadline = Math.min(start + handler.timeoutMs, this.chainEnd);
    if (deadline < Number.POSITIVE_INFINITY) {
      this.deadline = deadline;
      watch(this);
    }
    return true;
  }

  private settled(id: number, value: unknown, failed: boolean): void {
    if (id !== this.waitId) return; // timed out already; a late result changes nothing
    this.waitId++;
    unwatch(this);
    this.guardedResume(value, failed);
  }

  onTimeout(): void {
    this.waitId++;
    const handler = this.handlers[this.index] as RegisteredHandler;
    if (this.deadline === this.chainEnd) {
      // The chain's deadline came before the handler's own: it is cut off, and the chain ends.
      this.guardedResume(undefined, false, true);
      return;
    }
    this.guardedResume(new HandlerTimeoutError(handler.timeoutMs), true);
  }

  /**
   * `resume`, from a promise callback or the watchdog's timer, where a throw would be an
   * unhandled rejection or an uncaught exception and the chain's promise would never settle.
   */
  private guardedResume(value: unknown, failed: boolean, cutOff = false): void {
    try {
      this.resume(value, failed, cutOff);
    } catch (error) {
      releaseIfIdle();
      this.resolve?.(runnerBroken(this, error));
    }
  }

  private resume(value: unknown, failed: boolean, cutOff: boolean): void {
    const handler = this.handlers[this.index] as RegisteredHandler;
    const end = now();
    const durationMs = end - this.waitStart;
    let ended = true;
    // Cut off by the chain's deadline, or settled past it before the timer fired: the chain ends.
    if (cutOff || end > this.chainEnd) {
      endPastDeadline(this, this.limit as ChainLimit, handler, durationMs);
    } else if (failed) {
      ended = failHandler(this, handler, describeThrown(value), durationMs, value);
    } else ended = this.apply(handler, value, durationMs);
    let outcome: ChainOutcome<unknown> | typeof WAITING;
    if (ended) {
      outcome = chainOutcome(this);
    } else {
      this.index++;
      outcome = this.loop(end);
    }
    if (outcome === WAITING) return;
    releaseIfIdle();
    this.resolve?.(outcome);
  }

  private passed(handler: RegisteredHandler, durationMs: number): void {
    this.trace.push(traceEntry(handler, 'pass', durationMs));
    if (this.onTrace !== undefined) tellStep(this, handler, 'pass', durationMs);
  }

  /** Classifies and applies one result. Returns true when the chain ends here. */
  private apply(handler: RegisteredHandler, result: unknown, durationMs: number): boolean {
    if (result === undefined || result === null || result === PASS) {
      this.passed(handler, durationMs);
      return false;
    }
    let r: ReadResult | string;
    try {
      r = readResult(this.decl, this.value, result);
    } catch (error) {
      const reason = `returned a result that cannot be read: ${describeThrown(error)}`;
      return failHandler(this, handler, reason, durationMs, undefined);
    }
    if (typeof r === 'string') return failHandler(this, handler, r, durationMs, undefined);
    const { action, metadata } = r;
    const changes = action !== 'pass' && action !== 'block' && action !== 'ask';
    if (changes && handler.phase === 'validate') {
      const reason = `returned ${action} in the validate phase; a validator may only pass, ${this.decl.asks ? 'ask ' : ''}or block (register a handler that changes the value without phase: 'validate')`;
      return failHandler(this, handler, reason, durationMs, undefined);
    }
    // Read only on a result that is not a pass: an unshadowed chain pays one field read there.
    if (handler.shadow && action !== 'pass') {
      return shadowDecision(this, handler, action, r.value, durationMs);
    }
    let value = this.value;
    let merged = this.metadata;
    try {
      if (metadata !== undefined) {
        // The first metadata of the chain is the handler's copy itself (already a fresh object).
        merged = Object.freeze(merged === EMPTY_METADATA ? metadata : { ...merged, ...metadata });
      }
      if (changes) value = this.decl.fold(value, r as AnyHookResult, handler.extension);
    } catch (error) {
      const reason = `returned a ${action} that cannot be copied: ${describeThrown(error)}`;
      return failHandler(this, handler, reason, durationMs, error);
    }
    const entry = traceEntry(handler, action, durationMs);
    if (r.droppedMetadata !== undefined) {
      entry.error = reportHandlerError(
        this,
        handler,
        r.droppedMetadata,
        `${action === 'ask' ? 'asked' : 'blocked'} all the same; the metadata was dropped`,
      );
    }
    this.trace.push(entry);
    this.metadata = merged;
    if (changes) {
      this.value = value;
      this.changed = true;
    }
    if (this.onTrace !== undefined) tellStep(this, handler, action, durationMs, entry.error);
    if (action === 'block') {
      blockChain(this, handler.extension, r.value as string);
      return true;
    }
    if (action === 'ask' && this.askedBy === '') {
      this.askMessage = r.value as string;
      this.askedBy = handler.extension;
      this.askRemember = r.remember;
    } else if (action === 'ask') {
      // Two extensions asked: one answer is not remembered, nor answered from memory, for both.
      this.askRemember = undefined;
    }
    if (changes || metadata !== undefined) {
      this.event = this.decl.event(this.input, this.value, this.turn, this.metadata);
    }
    return false;
  }
}
