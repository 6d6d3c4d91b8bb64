import type { HookDeclaration, TurnContext } from '../hooks/declaration.js';
import { type AnyHookResult, type Metadata, PASS } from '../hooks/results.js';
import {
  describeInvalidResult,
  describeThrown,
  HandlerTimeoutError,
  HookHandlerError,
} from './errors.js';
import { isPlainObject } from './frozen.js';
import type { RegisteredHandler } from './handler.js';
import { type ChainOutcome, EMPTY_METADATA, type TraceEntry, unchangedOutcome } from './outcome.js';
import { releaseIfIdle, unwatch, type Watched, watch } from './watchdog.js';

type AnyDeclaration = HookDeclaration<unknown, unknown, unknown>;

const now = () => performance.now();
/** What `loop` returns when it stopped to wait for an async handler. */
const WAITING = Symbol('waiting');
/** Thrown by `validResult`; the precise reason is worked out only then, off the hot path. */
const INVALID = Symbol('invalid result');
/** Distinct failure reasons logged per handler, at most: a guard failing in new ways every call must not grow memory. */
const MAX_LOGGED_REASONS = 50;

/**
 * Runs one hook's handlers over one payload (DESIGN §2): ascending priority (the list arrives
 * sorted, every validator after every mutator), each rewrite or injection folded into the value later handlers see, the first block
 * ending the chain, metadata merged in chain order, one trace entry per handler that ran.
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
): ChainOutcome<Value> | Promise<ChainOutcome<Value>> {
  if (handlers.length === 0) return unchangedOutcome(decl.unchanged(input));
  const run = new ChainRun(decl as AnyDeclaration, handlers, input, turn);
  const outcome = run.loop();
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
  message: string | undefined = undefined;
  blockedBy: string | undefined = undefined;
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

  constructor(
    readonly decl: AnyDeclaration,
    readonly handlers: readonly RegisteredHandler[],
    readonly input: unknown,
    readonly turn: TurnContext,
  ) {
    this.value = decl.view(input);
    this.event = decl.event(input, this.value, turn, EMPTY_METADATA);
  }

  /** Runs handlers from `index` on, synchronously, until the chain ends or a handler is async. */
  loop(start = now()): ChainOutcome<unknown> | typeof WAITING {
    const handlers = this.handlers;
    for (; this.index < handlers.length; this.index++) {
      const handler = handlers[this.index] as RegisteredHandler;
      let result: unknown;
      try {
        result = (handler.fn as (event: unknown) => unknown)(this.event);
      } catch (error) {
        const end = now();
        if (this.fail(handler, describeThrown(error), end - start, error)) return this.outcome();
        start = end;
        continue;
      }
      if (
        result !== null &&
        typeof result === 'object' &&
        typeof (result as PromiseLike<unknown>).then === 'function'
      ) {
        this.wait(handler, result as PromiseLike<unknown>, start);
        return WAITING;
      }
      const end = now();
      const durationMs = end - start;
      start = end;
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

  /** Awaits an async handler once: one `then`, and a watchdog entry instead of a timer. */
  private wait(handler: RegisteredHandler, pending: PromiseLike<unknown>, start: number): void {
    const id = ++this.waitId;
    this.waitStart = start;
    if (handler.timeoutMs < Number.POSITIVE_INFINITY) {
      this.deadline = start + handler.timeoutMs;
      watch(this);
    }
    // Promise.resolve returns a native promise as it is, and makes a foreign thenable settle
    // asynchronously, so `resolve` is always attached before `resume` can run.
    Promise.resolve(pending).then(
      (result) => this.settled(id, result, false),
      (error: unknown) => this.settled(id, error, true),
    );
  }

  private settled(id: number, value: unknown, failed: boolean): void {
    if (id !== this.waitId) return; // timed out already; a late result changes nothing
    this.waitId++;
    unwatch(this);
    this.resume(value, failed);
  }

  onTimeout(): void {
    this.waitId++;
    const handler = this.handlers[this.index] as RegisteredHandler;
    this.resume(new HandlerTimeoutError(handler.timeoutMs), true);
  }

  private resume(value: unknown, failed: boolean): void {
    const handler = this.handlers[this.index] as RegisteredHandler;
    const end = now();
    const durationMs = end - this.waitStart;
    const ended = failed
      ? this.fail(handler, describeThrown(value), durationMs, value)
      : this.apply(handler, value, durationMs);
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
      if (this.turn.onStep !== undefined) this.step(handler, 'pass', durationMs);
      return false;
    }
    let r: AnyHookResult & { value?: unknown };
    try {
      r = this.validResult(result);
    } catch (error) {
      const reason =
        error === INVALID
          ? describeInvalid(this.decl, result)
          : `returned a result that cannot be read: ${describeThrown(error)}`;
      return this.fail(handler, reason, durationMs, error === INVALID ? undefined : error);
    }
    const { action, metadata } = r;
    const changes = action !== 'pass' && action !== 'block';
    if (changes && handler.phase === 'validate') {
      const reason = `returned ${action} in the validate phase; a validator may only pass or block (register a handler that changes the value without phase: 'validate')`;
      return this.fail(handler, reason, durationMs, undefined);
    }
    let value = this.value;
    let merged = this.metadata;
    try {
      if (metadata !== undefined) merged = Object.freeze({ ...merged, ...metadata });
      if (changes) value = this.decl.fold(value, r);
    } catch (error) {
      const reason = `returned a ${action} that cannot be copied: ${describeThrown(error)}`;
      return this.fail(handler, reason, durationMs, error);
    }
    this.trace.push(traceEntry(handler, action, durationMs));
    this.metadata = merged;
    if (changes) {
      this.value = value;
      this.changed = true;
    }
    if (this.turn.onStep !== undefined) this.step(handler, action, durationMs);
    if (action === 'block') {
      this.block(handler.extension, r.value as string);
      return true;
    }
    if (changes || metadata !== undefined) {
      this.event = this.decl.event(this.input, this.value, this.turn, this.metadata);
    }
    return false;
  }

  /**
   * The result as a plain snapshot, or throws INVALID. The fields are read once, so a result
   * with getters cannot show the checks one thing and the fold another.
   */
  private validResult(result: unknown): AnyHookResult & { value?: unknown } {
    if (typeof result !== 'object') throw INVALID;
    const { action, value, metadata } = result as {
      action?: unknown;
      value?: unknown;
      metadata?: unknown;
    };
    if (metadata !== undefined && !isPlainObject(metadata)) throw INVALID;
    if (action === 'pass') {
      if (value !== undefined) throw INVALID;
    } else if (action === 'block') {
      if (typeof value !== 'string' || value.length === 0) throw INVALID;
    } else {
      const schema = typeof action === 'string' ? this.decl.actions[action] : undefined;
      if (schema === undefined || !schema.safeParse(result).success) throw INVALID;
    }
    return { action, value, metadata } as AnyHookResult & { value?: unknown };
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
    const error = new HookHandlerError(handler.extension, this.decl.name, reason, { cause });
    const failClosed = handler.onError === 'block';
    const action = failClosed ? 'block' : 'error';
    const entry = traceEntry(handler, action, durationMs);
    entry.error = error.message;
    this.trace.push(entry);
    if (this.turn.onStep !== undefined) this.step(handler, action, durationMs, error.message);
    if (!handler.loggedErrors.has(reason) && handler.loggedErrors.size < MAX_LOGGED_REASONS) {
      handler.loggedErrors.add(reason);
      const consequence = failClosed ? 'blocked (onError: block)' : 'ignored (onError: pass)';
      try {
        handler.log.warn(`${error.message} — ${consequence}`);
      } catch {
        // A host's logger that throws must not turn a handled failure into a crash.
      }
    }
    if (!failClosed) return false;
    this.block(
      handler.extension,
      `Blocked because extension "${handler.extension}" failed in ${this.decl.name} (${reason}).`,
    );
    return true;
  }

  private step(
    handler: RegisteredHandler,
    action: string,
    durationMs: number,
    error?: string,
  ): void {
    try {
      this.turn.onStep?.({
        hook: this.decl.name,
        extension: handler.extension,
        action,
        durationMs,
        value: this.value,
        ...(handler.phase === 'validate' ? { phase: 'validate' as const } : {}),
        ...(error === undefined ? {} : { error }),
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
      return {
        blocked: false,
        changed: this.changed,
        value,
        metadata: this.metadata,
        trace: this.trace,
      };
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

/** The precise reason a result is invalid; reading it again may throw (getters), so guarded. */
function describeInvalid(decl: AnyDeclaration, result: unknown): string {
  try {
    return describeInvalidResult(decl, result);
  } catch (error) {
    return `returned an invalid result that cannot be read: ${describeThrown(error)}`;
  }
}
