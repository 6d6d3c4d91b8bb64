import type { RememberScope } from '../hooks/remember-scope.js';
import type { Metadata } from '../hooks/results.js';

/**
 * Who decided an outcome the framework decided itself (`blockedBy` of a tool that was not offered
 * or of a chain that failed, a load failure's extension): no extension may take the name.
 */
export const FRAMEWORK_NAME = 'hermes';

export const EMPTY_METADATA: Metadata = Object.freeze({});

export interface TraceEntry {
  extension: string;
  /**
   * The action the handler took: `pass`, `rewrite`, `block`, `ask`, `inject_*`, `restrict_tools`,
   * or `error` (failed, fail-open).
   */
  action: string;
  durationMs: number;
  /** Only on the entries of validators (handlers registered with `phase: 'validate'`). */
  phase?: 'validate';
  /** Why the handler failed, when it did. */
  error?: string;
  /**
   * Only on the entries of handlers in shadow mode that did not pass: what they decided, which
   * the chain recorded and did not apply (`action` is then `pass`, or `error` for a failure).
   */
  shadow?: ShadowDecision;
}

/** A shadowed handler's decision (docs/chain-semantics.md, Shadow mode). */
export interface ShadowDecision {
  /** What it would have done: `block`, `ask`, `rewrite`, `inject_*`, `restrict_tools`. */
  action: string;
  /** The reason of a block or an ask. */
  message?: string;
}

/**
 * A trace entry as it is made, for tooling that follows a chain handler by handler
 * (`hermes extensions test`, `doctor`): which hook, and the value after the handler.
 */
export interface ChainStep extends TraceEntry {
  hook: string;
  /** The value after this handler: what later handlers see. */
  value: unknown;
}

/** Told each handler's decision as it is made (`TurnOptions.onTrace`). */
export type OnTrace = (step: ChainStep) => void;

interface OutcomeBase<V> {
  /** Some handler rewrote or injected. */
  changed: boolean;
  /** The final value: the host's own input when nothing changed, else a read-only new value. */
  value: V;
  metadata: Metadata;
  trace: TraceEntry[];
}

/** A handler's request for a person's approval (`ask`): why, and which extension asked. */
export interface ApprovalAsk {
  message: string;
  askedBy: string;
  /** What the asker allows the answer to be remembered for (`ask`'s `remember`). */
  remember?: RememberScope;
  /**
   * The arguments the person is asked about and an answer is remembered for, when they differ
   * from the outcome's `value`: the handlers' arguments, which the framework then made run in
   * its protected-ground sandbox (docs/trust.md, Protected ground). A person approves the command
   * they can read; it runs with less reach than they approved.
   */
  toolArgs?: Record<string, unknown>;
}

/**
 * What one run of a chain decided (docs/hosts.md). `if (outcome.blocked)` narrows: a
 * blocked outcome always says why and who. An outcome that is not blocked may carry `ask`
 * (`intercept_tool_call` only): the first handler that asked for approval; the host asks a
 * person or, with nobody to ask, denies the call with the message.
 */
export type ChainOutcome<V> =
  | (OutcomeBase<V> & { blocked: false; ask?: ApprovalAsk })
  | (OutcomeBase<V> & {
      /** A handler blocked; the handlers after it did not run. */
      blocked: true;
      message: string;
      /** The extension whose handler blocked (or failed closed). */
      blockedBy: string;
    });

/** The outcome of a chain with no handler to run: the input as it came, nothing recorded. */
export function unchangedOutcome<V>(value: V): ChainOutcome<V> {
  return { blocked: false, changed: false, value, metadata: EMPTY_METADATA, trace: [] };
}
