import type { AnyHookDeclaration, HookDeclaration, TurnContext } from '../hooks/declaration.js';
import type { RememberScope } from '../hooks/remember-scope.js';
import { type AnyHookResult, type Metadata, PASS } from '../hooks/results.js';
import { type ChainLimit, pastDeadline } from './chain-deadline.js';
import { describeError, describeThrown, HandlerTimeoutError, HookHandlerError } from './errors.js';
import type { RegisteredHandler } from './handler.js';
import {
  type ChainOutcome,
  EMPTY_METADATA,
  FRAMEWORK_NAME,
  type OnTrace,
  type TraceEntry,
  unchangedOutcome,
} from './outcome.js';
import { type ReadResult, readResult } from './read-result.js';
import { shadowEntry, shadowMessage } from './shadow.js';
import { releaseIfIdle, unwatch, type Watched, watch } from './watchdog.js';

const now = () => performance.now();
/** What `loop` returns when it stopped to wait for an async handler. */
const WAITING = Symbol('waiting');
/** `then` of native promises: a result whose `then` is this is awaited with one call of it. */
const NATIVE_THEN = Promise.prototype.then;
/** Distinct failure reasons logged per handler, at most: a guard failing in new ways every call must not grow memory. */
const MAX_LOGGED_REASONS = 50;

/**
 * Runs one hook's handlers over one payload (docs/chain-semantics.md, How a chain runs and Two phases):
 * ascending priority (the list arrives sorted, every validator after every mutator), each
 * rewrite or injection folded into the value later handlers see, the first block ending the
 * chain, metadata merged in chain order, one trace entry per handler that ran.
 *
 * It stays synchronous until a handler returns a thenable, so a chain of sync handlers returns
 * its outcome directly and pays for no promise it did not create. From the first thenable on the
 * outcome is one promise, each async handler is awaited with a single `then`, and the handlers
 * after it run synchronously again until the next thenable.
 */
export function runChain<Input, Value, Event>(
  decl: HookDeclaration<Input, Value, Event>,
  handlers: readonly RegisteredHandler[],
  input: Input,
  turn: TurnContext,
  onTrace?: OnTrace,
  /** The whole chain's time limit (chain-deadline.ts); none when undefined. */
  limit?: ChainLimit,
): ChainOutcome<Value> | Promise<ChainOutcome<Value>> {
  if (handlers.length === 0) return unchangedOutcome(decl.unchanged(input));
  const run = new ChainRun(decl as AnyHookDeclaration, handlers, input, turn, onTrace);
  let outcome: ChainOutcome<unknown> | typeof WAITING;
  try {
    outcome = limit === undefined ? run.loop() : run.loop(run.startClock(limit));
  } catch (error) {
    // Every handler value is read inside a guard, so this is the runner's own fault: fail closed.
    return run.broken(error) as ChainOutcome<Value>;
  }
  if (outcome !== WAITING) return outcome as ChainOutcome<Value>;
  // Safe to attach after the loop: a handler's promise settles in a later microtask at the earliest.
  return new Promise((resolve) => {
    run.resolve = resolve as (outcome: ChainOutcome<unknown>) => void;
  });
}

/**
 * One run of one chain. While it waits for an async handler it is also that handler's entry in
 * the timeout watchdog; `waitId` tells a settlement that arrives after a timeout to go away.
 */
class ChainRun implements Watched {
  index = 0;
  changed = false;
  blocked = false;
  /** Set with `blocked` (`block`), read only when it is true. */
  message = '';
  blockedBy = '';
  /** The first ask (`intercept_tool_call`); `askedBy` stays empty while nobody asked. */
  askMessage = '';
  askedBy = '';
  askRemember: RememberScope | undefined;
  metadata: Metadata = EMPTY_METADATA;
  value: unknown;
  event: unknown;
  readonly trace: ChainOutcome<unknown>['trace'] = [];
  resolve: ((outcome: ChainOutcome<unknown>) => void) | undefined = undefined;
  deadline = 0;
  watching = false;
  previousWait: Watched | undefined = undefined;
  nextWait: Watched | undefined = undefined;
  waitId = 0;
  waitStart = 0;
  /** When the whole chain must have decided (chain-deadline.ts); never, without a limit. */
  chainEnd = Number.POSITIVE_INFINITY;
  limit: ChainLimit | undefined = undefined;

  constructor(
    readonly decl: AnyHookDeclaration,
    readonly handlers: readonly RegisteredHandler[],
    readonly input: unknown,
    readonly turn: TurnContext,
    /** Tooling that follows the chain handler by handler (`TurnOptions.onTrace`). */
    readonly onTrace: OnTrace | undefined,
  ) {
    this.value = decl.view(input);
    this.event = decl.event(input, this.value, turn, EMPTY_METADATA);
  }

  /** Runs handlers from `index` on, synchronously, until the chain ends or a handler is async. */
  loop(start = now()): ChainOutcome<unknown> | typeof WAITING {
    const handlers = this.handlers;
    for (; this.index < handlers.length; this.index++) {
      // `start` is when the last handler ended: nothing starts past the chain's deadline.
      if (start >= this.chainEnd) return this.endPastDeadline(undefined, 0);
      const handler = handlers[this.index] as RegisteredHandler;
      // One field read for a handler without `when`: matching stays off its path.
      if (handler.when !== undefined) {
        let matched: boolean;
        try {
          matched = handler.when(this.event);
        } catch (error) {
          const end = now();
          const reason = `its \`when\` pattern failed: ${describeThrown(error)}`;
          if (this.fail(handler, reason, end - start, error)) return this.outcome();
          start = end;
          continue;
        }
        if (!matched) continue;
      }
      let result: unknown;
      try {
        result = (handler.fn as (event: unknown) => unknown)(this.event);
      } catch (error) {
        const end = now();
        if (this.fail(handler, describeThrown(error), end - start, error)) return this.outcome();
        start = end;
        continue;
      }
      if (result !== null && typeof result === 'object') {
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
          if (this.fail(handler, failure, end - start, undefined)) return this.outcome();
          start = end;
          continue;
        }
      }
      const end = now();
      const durationMs = end - start;
      start = end;
      // A synchronous handler that ends past the chain's deadline ends it; its result is discarded.
      if (end > this.chainEnd) return this.endPastDeadline(handler, durationMs);
      if (durationMs > handler.timeoutMs) {
        // A synchronous handler cannot be interrupted, but running past its limit is still a
        // failure: its result is discarded so a slow guard behaves the same sync or async.
        const reason = `ran ${Math.round(durationMs)} ms, past its timeoutMs of ${handler.timeoutMs}`;
        if (this.fail(handler, reason, durationMs, undefined)) return this.outcome();
        continue;
      }
      if (this.apply(handler, result, durationMs)) return this.outcome();
    }
    return this.outcome();
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
      this.resolve?.(this.broken(error));
    }
  }

  private resume(value: unknown, failed: boolean, cutOff: boolean): void {
    const handler = this.handlers[this.index] as RegisteredHandler;
    const end = now();
    const durationMs = end - this.waitStart;
    let ended = true;
    // Cut off by the chain's deadline, or settled past it before the timer fired: the chain ends.
    if (cutOff || end > this.chainEnd) this.endPastDeadline(handler, durationMs);
    else if (failed) ended = this.fail(handler, describeThrown(value), durationMs, value);
    else ended = this.apply(handler, value, durationMs);
    let outcome: ChainOutcome<unknown> | typeof WAITING;
    if (ended) {
      outcome = this.outcome();
    } else {
      this.index++;
      outcome = this.loop(end);
    }
    if (outcome === WAITING) return;
    releaseIfIdle();
    this.resolve?.(outcome);
  }

  /** Classifies and applies one result. Returns true when the chain ends here. */
  private apply(handler: RegisteredHandler, result: unknown, durationMs: number): boolean {
    if (result === undefined || result === null || result === PASS) {
      this.trace.push(traceEntry(handler, 'pass', durationMs));
      if (this.onTrace !== undefined) this.step(handler, 'pass', durationMs);
      return false;
    }
    let r: ReadResult | string;
    try {
      r = readResult(this.decl, this.value, result);
    } catch (error) {
      const reason = `returned a result that cannot be read: ${describeThrown(error)}`;
      return this.fail(handler, reason, durationMs, undefined);
    }
    if (typeof r === 'string') return this.fail(handler, r, durationMs, undefined);
    const { action, metadata } = r;
    const changes = action !== 'pass' && action !== 'block' && action !== 'ask';
    if (changes && handler.phase === 'validate') {
      const reason = `returned ${action} in the validate phase; a validator may only pass, ${this.decl.asks ? 'ask ' : ''}or block (register a handler that changes the value without phase: 'validate')`;
      return this.fail(handler, reason, durationMs, undefined);
    }
    // Read only on a result that is not a pass: an unshadowed chain pays one field read there.
    if (handler.shadow && action !== 'pass') {
      const message = shadowMessage(action, r.value);
      return this.record(handler, shadowEntry(handler, 'pass', action, message, durationMs));
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
      return this.fail(handler, reason, durationMs, error);
    }
    const entry = traceEntry(handler, action, durationMs);
    if (r.droppedMetadata !== undefined) {
      entry.error = this.report(
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
    if (this.onTrace !== undefined) this.step(handler, action, durationMs, entry.error);
    if (action === 'block') {
      this.block(handler.extension, r.value as string);
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

  /**
   * A handler error: never thrown, decided by the handler's `onError`. Logged once per distinct
   * reason per handler, recorded in the trace either way. Returns true when the chain ends here.
   */
  private fail(
    handler: RegisteredHandler,
    reason: string,
    durationMs: number,
    cause: unknown,
  ): boolean {
    const failClosed = handler.onError === 'block';
    const message = `Blocked because extension "${handler.extension}" failed in ${this.decl.name} (${reason}).`;
    if (failClosed && handler.shadow) {
      const entry = shadowEntry(handler, 'error', 'block', message, durationMs);
      entry.error = this.report(handler, reason, 'ignored (shadow mode)', cause);
      return this.record(handler, entry);
    }
    const action = failClosed ? 'block' : 'error';
    const entry = traceEntry(handler, action, durationMs);
    const consequence = failClosed ? 'blocked (onError: block)' : 'ignored (onError: pass)';
    entry.error = this.report(handler, reason, consequence, cause);
    this.trace.push(entry);
    if (this.onTrace !== undefined) this.step(handler, action, durationMs, entry.error);
    if (!failClosed) return false;
    this.block(handler.extension, message);
    return true;
  }

  /**
   * The handler error's message, for the trace. Logged once per distinct reason per handler,
   * with what came of it.
   */
  private report(
    handler: RegisteredHandler,
    reason: string,
    consequence: string,
    cause?: unknown,
  ): string {
    const { message } = new HookHandlerError(handler.extension, this.decl.name, reason, { cause });
    if (!handler.loggedErrors.has(reason) && handler.loggedErrors.size < MAX_LOGGED_REASONS) {
      handler.loggedErrors.add(reason);
      try {
        handler.log.warn(`${message} — ${consequence}`);
      } catch {
        // A host's logger that throws must not turn a handled failure into a crash.
      }
    }
    return message;
  }

  /** Starts the chain's clock under `limit`: returns the start time for `loop`. */
  startClock(limit: ChainLimit): number {
    const start = now();
    this.limit = limit;
    this.chainEnd = start + limit.ms;
    return start;
  }

  /**
   * Ends the chain past its deadline with the hook's fail rule (chain-deadline.ts); `cut` is the
   * handler that was running then, if one was.
   */
  private endPastDeadline(
    cut: RegisteredHandler | undefined,
    durationMs: number,
  ): ChainOutcome<unknown> {
    const limit = this.limit as ChainLimit;
    const { entry, blockMessage } = pastDeadline(
      this.decl,
      limit,
      this.trace,
      this.handlers,
      this.index,
      cut,
      durationMs,
    );
    this.trace.push(entry);
    if (this.onTrace !== undefined && cut !== undefined) {
      this.step(cut, entry.action, durationMs, entry.error);
    }
    if (blockMessage !== undefined) this.block(FRAMEWORK_NAME, blockMessage);
    return this.outcome();
  }

  /**
   * The outcome when the runner itself failed (never a handler: their values are read inside
   * guards). Blocked, whatever the hook, since nothing it decided so far can be trusted.
   */
  broken(error: unknown): ChainOutcome<unknown> {
    const extension = this.handlers[this.index]?.extension ?? FRAMEWORK_NAME;
    this.block(
      extension,
      `Blocked because the ${this.decl.name} chain failed while running extension "${extension}" (${describeError(error)}). This is a fault in hermes-extensions, not in the extension; please report it.`,
    );
    return this.outcome();
  }

  /** A shadowed handler's entry: recorded, told, and the chain goes on unchanged. */
  private record(handler: RegisteredHandler, entry: TraceEntry): false {
    this.trace.push(entry);
    if (this.onTrace !== undefined) {
      this.step(handler, entry.action, entry.durationMs, entry.error, entry.shadow);
    }
    return false;
  }

  private step(
    handler: RegisteredHandler,
    action: string,
    durationMs: number,
    error?: string,
    shadow?: TraceEntry['shadow'],
  ): void {
    try {
      this.onTrace?.({
        hook: this.decl.name,
        extension: handler.extension,
        action,
        durationMs,
        value: this.value,
        ...(handler.phase === 'validate' ? { phase: 'validate' as const } : {}),
        ...(error === undefined ? {} : { error }),
        ...(shadow === undefined ? {} : { shadow }),
      });
    } catch {
      // A tool's observer must not change what the chain decides.
    }
  }

  private block(extension: string, message: string): void {
    this.blocked = true;
    this.blockedBy = extension;
    this.message = message;
  }

  outcome(): ChainOutcome<unknown> {
    const value = this.changed ? this.value : this.decl.unchanged(this.input);
    if (!this.blocked) {
      const passed: ChainOutcome<unknown> = {
        blocked: false,
        changed: this.changed,
        value,
        metadata: this.metadata,
        trace: this.trace,
      };
      // Only an outcome somebody asked in has the key.
      if (this.askedBy !== '') {
        const remember = this.askRemember === undefined ? {} : { remember: this.askRemember };
        passed.ask = { message: this.askMessage, askedBy: this.askedBy, ...remember };
      }
      return passed;
    }
    return {
      blocked: true,
      message: this.message,
      blockedBy: this.blockedBy,
      changed: this.changed,
      value,
      metadata: this.metadata,
      trace: this.trace,
    };
  }
}

/** A validator's entry says so; a mutator's keeps the shape it always had. */
function traceEntry(handler: RegisteredHandler, action: string, durationMs: number): TraceEntry {
  return handler.phase === 'validate'
    ? { extension: handler.extension, action, durationMs, phase: 'validate' }
    : { extension: handler.extension, action, durationMs };
}
