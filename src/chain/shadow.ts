import { type ChainState, tellStep } from './chain-state.js';
import type { RegisteredHandler } from './handler.js';
import type { TraceEntry } from './outcome.js';

/**
 * Shadow mode (docs/chain-semantics.md, Shadow mode): a new guard rolled out on real traffic first.
 * Its handler runs as any other; what it decides — a block, an ask, a rewrite or injection, a
 * failure that would have blocked — is put in its trace entry and not applied, so the call goes
 * on as if it had passed. A shadowed guard changes nothing: not the value later handlers see, not
 * the metadata, not who asked. Kept apart from chain-run.ts so the runner reads one flag.
 */

/** A shadowed handler's decision, not applied: recorded and told; the chain goes on unchanged. */
export function shadowDecision(
  state: ChainState,
  handler: RegisteredHandler,
  action: string,
  value: unknown,
  durationMs: number,
): false {
  const entry = shadowEntry(handler, 'pass', action, shadowMessage(action, value), durationMs);
  return recordShadow(state, handler, entry);
}

/** A shadowed handler's entry: recorded, told, and the chain goes on unchanged. */
export function recordShadow(
  state: ChainState,
  handler: RegisteredHandler,
  entry: TraceEntry,
): false {
  state.trace.push(entry);
  if (state.onTrace !== undefined) {
    tellStep(state, handler, entry.action, entry.durationMs, entry.error, entry.shadow);
  }
  return false;
}

/** A shadowed handler's trace entry: what it did (`recorded`) and what it would have done. */
export function shadowEntry(
  handler: RegisteredHandler,
  /** `pass` for a decision it made, `error` for a failure. */
  recorded: 'pass' | 'error',
  action: string,
  message: string | undefined,
  durationMs: number,
): TraceEntry {
  const entry: TraceEntry = { extension: handler.extension, action: recorded, durationMs };
  if (handler.phase === 'validate') entry.phase = 'validate';
  entry.shadow = message === undefined ? { action } : { action, message };
  return entry;
}

/** The reason a block or an ask carries; other results are recorded by their action alone. */
function shadowMessage(action: string, value: unknown): string | undefined {
  return (action === 'block' || action === 'ask') && typeof value === 'string' ? value : undefined;
}
