import { type ChainOutcome, EMPTY_METADATA } from '../chain/outcome.js';
import type { HookDeclaration } from '../hooks/declaration.js';
import type { RuntimeCrash } from './served-runtimes.js';

/**
 * What a hook call of a turn whose runtime an extension crashed is answered (served-runtimes.ts): the
 * hook's fail rule, as for a handler that failed (docs/failure-behaviour.md) — blocked by the
 * extension on the hooks that fail closed (a tool call, a tool's result, the final answer), the
 * host's own input unchanged on those that fail open (the user's message, a model request), with
 * the reason in the trace. Never what the crashed runtime's chain would still answer: its state
 * is not known, and a guard that crashed must not turn into an allow.
 */
export function refusedAfterCrash<Input, Value>(
  decl: HookDeclaration<Input, Value, unknown>,
  input: Input,
  crash: RuntimeCrash,
): ChainOutcome<Value> {
  const why = `${crash.reason}; this turn's runtime decides nothing more (start a new turn: it loads the extensions afresh)`;
  const failClosed = decl.defaultOnError === 'block';
  const base = {
    changed: false,
    value: decl.unchanged(input),
    metadata: EMPTY_METADATA,
    trace: [
      {
        extension: crash.blamed,
        action: failClosed ? 'block' : 'error',
        durationMs: 0,
        error: why,
      },
    ],
  };
  if (!failClosed) return { ...base, blocked: false };
  return { ...base, blocked: true, message: `Blocked because ${why}.`, blockedBy: crash.blamed };
}
