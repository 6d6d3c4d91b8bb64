import type { AnyHookDeclaration } from '../hooks/declaration.js';
import type { RememberScope } from '../hooks/remember-scope.js';
import type { Metadata } from '../hooks/results.js';
import type { RegisteredHandler } from './handler.js';
import type { ChainOutcome, OnTrace, TraceEntry } from './outcome.js';

/**
 * What one run of one chain has decided so far: the runner's loop (chain-run.ts) and the
 * paths it takes only when something goes wrong (handler-failure.ts, shadow.ts, chain-deadline.ts)
 * both write it, and `chainOutcome` reads it when the chain ends.
 */
export interface ChainState {
  readonly decl: AnyHookDeclaration;
  readonly handlers: readonly RegisteredHandler[];
  readonly input: unknown;
  /** Tooling that follows the chain handler by handler (`TurnOptions.onTrace`). */
  readonly onTrace: OnTrace | undefined;
  readonly trace: TraceEntry[];
  /** The handler running, or about to. */
  index: number;
  changed: boolean;
  blocked: boolean;
  /** Set with `blocked` (`blockChain`), read only when it is true. */
  message: string;
  blockedBy: string;
  /** The first ask (`intercept_tool_call`); `askedBy` stays empty while nobody asked. */
  askMessage: string;
  askedBy: string;
  askRemember: RememberScope | undefined;
  metadata: Metadata;
  /** What later handlers see. */
  value: unknown;
}

/** A validator's entry says so; a mutator's keeps the shape it always had. */
export function traceEntry(
  handler: RegisteredHandler,
  action: string,
  durationMs: number,
): TraceEntry {
  return handler.phase === 'validate'
    ? { extension: handler.extension, action, durationMs, phase: 'validate' }
    : { extension: handler.extension, action, durationMs };
}

/** Tells `onTrace` of one handler's decision; called only when there is an `onTrace`. */
export function tellStep(
  state: ChainState,
  handler: RegisteredHandler,
  action: string,
  durationMs: number,
  error?: string,
  shadow?: TraceEntry['shadow'],
): void {
  try {
    state.onTrace?.({
      hook: state.decl.name,
      extension: handler.extension,
      action,
      durationMs,
      value: state.value,
      ...(handler.phase === 'validate' ? { phase: 'validate' as const } : {}),
      ...(error === undefined ? {} : { error }),
      ...(shadow === undefined ? {} : { shadow }),
    });
  } catch {
    // A tool's observer must not change what the chain decides.
  }
}

export function blockChain(state: ChainState, extension: string, message: string): void {
  state.blocked = true;
  state.blockedBy = extension;
  state.message = message;
}

export function chainOutcome(state: ChainState): ChainOutcome<unknown> {
  const value = state.changed ? state.value : state.decl.unchanged(state.input);
  if (!state.blocked) {
    const passed: ChainOutcome<unknown> = {
      blocked: false,
      changed: state.changed,
      value,
      metadata: state.metadata,
      trace: state.trace,
    };
    // Only an outcome somebody asked in has the key.
    if (state.askedBy !== '') {
      const remember = state.askRemember === undefined ? {} : { remember: state.askRemember };
      passed.ask = { message: state.askMessage, askedBy: state.askedBy, ...remember };
    }
    return passed;
  }
  return {
    blocked: true,
    message: state.message,
    blockedBy: state.blockedBy,
    changed: state.changed,
    value,
    metadata: state.metadata,
    trace: state.trace,
  };
}
