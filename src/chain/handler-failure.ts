import { blockChain, type ChainState, chainOutcome, tellStep, traceEntry } from './chain-state.js';
import { describeError, HookHandlerError } from './errors.js';
import type { RegisteredHandler } from './handler.js';
import { type ChainOutcome, FRAMEWORK_NAME } from './outcome.js';
import { recordShadow, shadowEntry } from './shadow.js';

/**
 * What becomes of a chain when a handler fails, or the runner itself: kept out of chain-run.ts,
 * whose loop only calls here once something went wrong (docs/chain-semantics.md, Failure).
 */

/** Distinct failure reasons logged per handler, at most: a guard failing in new ways every call must not grow memory. */
const MAX_LOGGED_REASONS = 50;

/**
 * A handler error: never thrown, decided by the handler's `onError`. Logged once per distinct
 * reason per handler, recorded in the trace either way. Returns true when the chain ends here.
 */
export function failHandler(
  state: ChainState,
  handler: RegisteredHandler,
  reason: string,
  durationMs: number,
  cause: unknown,
): boolean {
  const failClosed = handler.onError === 'block';
  const message = `Blocked because extension "${handler.extension}" failed in ${state.decl.name} (${reason}).`;
  if (failClosed && handler.shadow) {
    const entry = shadowEntry(handler, 'error', 'block', message, durationMs);
    entry.error = reportHandlerError(state, handler, reason, 'ignored (shadow mode)', cause);
    return recordShadow(state, handler, entry);
  }
  const action = failClosed ? 'block' : 'error';
  const entry = traceEntry(handler, action, durationMs);
  const consequence = failClosed ? 'blocked (onError: block)' : 'ignored (onError: pass)';
  entry.error = reportHandlerError(state, handler, reason, consequence, cause);
  state.trace.push(entry);
  if (state.onTrace !== undefined) tellStep(state, handler, action, durationMs, entry.error);
  if (!failClosed) return false;
  blockChain(state, handler.extension, message);
  return true;
}

/**
 * The handler error's message, for the trace. Logged once per distinct reason per handler,
 * with what came of it.
 */
export function reportHandlerError(
  state: ChainState,
  handler: RegisteredHandler,
  reason: string,
  consequence: string,
  cause?: unknown,
): string {
  const { message } = new HookHandlerError(handler.extension, state.decl.name, reason, { cause });
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

/**
 * The outcome when the runner itself failed (never a handler: their values are read inside
 * guards). Blocked, whatever the hook, since nothing it decided so far can be trusted.
 */
export function runnerBroken(state: ChainState, error: unknown): ChainOutcome<unknown> {
  const extension = state.handlers[state.index]?.extension ?? FRAMEWORK_NAME;
  blockChain(
    state,
    extension,
    `Blocked because the ${state.decl.name} chain failed while running extension "${extension}" (${describeError(error)}). This is a fault in hermes-extensions, not in the extension; please report it.`,
  );
  return chainOutcome(state);
}
