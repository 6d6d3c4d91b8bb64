import type { ChainOutcome } from '../../chain/outcome.js';

/**
 * The bridge speaks snake_case, as the Python agent does; the runtime speaks camelCase. Each hook's
 * payload and value convert by its declaration's `wire` (`src/hooks/`); the outcome around them here.
 */
export function outcomeToWire(
  outcome: ChainOutcome<unknown>,
  value: unknown,
): Record<string, unknown> {
  return {
    blocked: outcome.blocked,
    ...(outcome.blocked ? { message: outcome.message, blocked_by: outcome.blockedBy } : {}),
    // intercept_tool_call only: a handler asked for a person's approval (docs/hosts.md, Asking a person).
    ...(!outcome.blocked && outcome.ask !== undefined
      ? { ask: { message: outcome.ask.message, asked_by: outcome.ask.askedBy } }
      : {}),
    changed: outcome.changed,
    value,
    metadata: outcome.metadata,
    trace: outcome.trace.map((entry) => ({
      extension: entry.extension,
      action: entry.action,
      duration_ms: entry.durationMs,
      ...(entry.error === undefined ? {} : { error: entry.error }),
      // What a handler in shadow mode decided and the chain did not apply (docs/chain-semantics.md).
      ...(entry.shadow === undefined ? {} : { shadow: entry.shadow }),
    })),
  };
}
