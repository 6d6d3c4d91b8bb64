import type { HookDeclaration, TurnContext } from '../hooks/declaration.js';
import { PASS } from '../hooks/results.js';
import type { ChainLimit } from './chain-deadline.js';
import { ChainRun, now, WAITING } from './chain-run.js';
import { traceEntry } from './chain-state.js';
import type { RegisteredHandler } from './handler.js';
import { runnerBroken } from './handler-failure.js';
import {
  type ChainOutcome,
  EMPTY_METADATA,
  type OnTrace,
  type TraceEntry,
  unchangedOutcome,
} from './outcome.js';

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
 *
 * Most chains are handlers that pass, in time, with no `when`: those run here, in the plain run,
 * with no state but a trace. The first handler that is anything else — one with a `when`, one
 * that throws, returns something other than a pass or runs past its time, a chain past its
 * deadline, a tool following the chain step by step — hands the chain over to `ChainRun`
 * (chain-run.ts), which runs the rest of it, the same as it would have from the start.
 */
export function runChain<Input, Value, Event>(
  decl: HookDeclaration<Input, Value, Event>,
  handlers: readonly RegisteredHandler[],
  input: Input,
  turn: TurnContext,
  onTrace?: OnTrace,
  /** The whole chain's time limit (chain-deadline.ts); none when undefined. */
  limit?: ChainLimit,
  /** What handlers first see, made by the caller (a tool call's one path form); else `decl.view`. */
  view?: Value,
): ChainOutcome<Value> | Promise<ChainOutcome<Value>> {
  if (handlers.length === 0) return unchangedOutcome(decl.unchanged(input));
  const value = view === undefined ? decl.view(input) : view;
  const event = decl.event(input, value, turn, EMPTY_METADATA);
  let start = now();
  const chainEnd = limit === undefined ? Number.POSITIVE_INFINITY : start + limit.ms;
  const trace: TraceEntry[] = [];
  let index = 0;
  // How the handler at `index` ended, when the plain run stopped after calling it: what it
  // threw or returned, and when a pass that came too late ended (0 when not timed).
  let called = false;
  let thrown = false;
  let error: unknown;
  let result: unknown;
  let ended = 0;
  // The plain run's own fault, not a handler's (none is expected): the chain fails closed.
  let faulted = false;
  let fault: unknown;
  if (onTrace === undefined) {
    try {
      for (; index < handlers.length; index++) {
        const handler = handlers[index] as RegisteredHandler;
        if (handler.when !== undefined || start >= chainEnd) break;
        called = true;
        try {
          result = (handler.fn as (event: unknown) => unknown)(event);
        } catch (caught) {
          thrown = true;
          error = caught;
          break;
        }
        if (result !== undefined && result !== null && result !== PASS) break;
        const end = now();
        const durationMs = end - start;
        if (end > chainEnd || durationMs > handler.timeoutMs) {
          ended = end;
          break;
        }
        start = end;
        trace.push(traceEntry(handler, 'pass', durationMs));
        called = false;
      }
    } catch (caught) {
      faulted = true;
      fault = caught;
    }
    if (!faulted && index === handlers.length) {
      return {
        blocked: false,
        changed: false,
        value: decl.unchanged(input),
        metadata: EMPTY_METADATA,
        trace,
      };
    }
  }
  const run = new ChainRun(
    decl as HookDeclaration<unknown, unknown, unknown>,
    handlers,
    input,
    turn,
    onTrace,
    value,
    event,
    trace,
    index,
    limit,
    chainEnd,
  );
  if (faulted) return runnerBroken(run, fault) as ChainOutcome<Value>;
  let outcome: ChainOutcome<unknown> | typeof WAITING;
  try {
    outcome = called ? run.after(thrown, error, result, start, ended) : run.loop(start);
  } catch (caught) {
    // Every handler value is read inside a guard, so this is the runner's own fault: fail closed.
    return runnerBroken(run, caught) as ChainOutcome<Value>;
  }
  if (outcome !== WAITING) return outcome as ChainOutcome<Value>;
  // Safe to attach after the loop: a handler's promise settles in a later microtask at the earliest.
  return new Promise((resolve) => {
    run.resolve = resolve as (outcome: ChainOutcome<unknown>) => void;
  });
}
