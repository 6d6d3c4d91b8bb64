import type { AnyHookDeclaration } from '../hooks/declaration.js';
import type { HookName } from '../hooks/index.js';
import { blockChain, type ChainState, chainOutcome, tellStep } from './chain-state.js';
import type { RegisteredHandler } from './handler.js';
import { type ChainOutcome, FRAMEWORK_NAME, type TraceEntry } from './outcome.js';

/**
 * The whole-chain deadline (docs/chain-semantics.md, A deadline for the whole chain): however
 * many handlers a hook has, together they get at most this long, so slow handlers that each stay
 * under their own `timeoutMs` cannot add up to more than the host allows. Past it the chain ends
 * with the hook's fail rule (`defaultOnError`): a guard blocks, a hook that only shapes a request
 * goes on with what the handlers that finished decided. The runner keeps this out of its own
 * path: with no limit it reads no clock and allocates nothing more (run-chain.ts, chain-run.ts).
 */

/** `chainTimeoutMs` of `createRuntime`, `extensions.chain_timeout_ms` of a config file. */
export type ChainTimeouts = Partial<Record<HookName, number>>;

/** How long one run of one chain may take, and who set that. */
export interface ChainLimit {
  readonly ms: number;
  /** `config`: the runtime's `chainTimeoutMs`; `host`: what the host's own deadline left. */
  readonly source: 'config' | 'host';
}

/**
 * The limits of one turn's chains: the configured one of each hook, lowered to what is left of
 * the host's deadline for the call (`TurnOptions.deadline`) when there is one. Made only when
 * either is set, so a turn without them pays one field read per chain.
 */
export class ChainDeadlines {
  readonly #configured: Readonly<Record<string, ChainLimit>>;

  constructor(
    readonly timeouts: ChainTimeouts | undefined,
    /** The host's deadline for every chain of the turn, in `Date.now()` milliseconds. */
    readonly until: number | undefined,
  ) {
    const configured: Record<string, ChainLimit> = {};
    for (const [hook, ms] of Object.entries(timeouts ?? {})) {
      if (typeof ms === 'number') configured[hook] = Object.freeze({ ms, source: 'config' });
    }
    this.#configured = configured;
  }

  /** These limits, with the host's deadline moved to `until` if that is sooner (one host call's). */
  by(until: number): ChainDeadlines {
    if (this.until !== undefined && this.until <= until) return this;
    return new ChainDeadlines(this.timeouts, until);
  }

  /** The limit of the chain of `hook` starting now, or undefined when it has none. */
  limit(hook: HookName): ChainLimit | undefined {
    const configured = this.#configured[hook];
    if (this.until === undefined) return configured;
    const left = this.until - Date.now();
    return configured !== undefined && configured.ms <= left
      ? configured
      : { ms: Math.floor(left), source: 'host' };
  }
}

/** Only these tell the runner anything: a limit of no time or of any time is no limit at all. */
export function chainDeadlinesOf(
  timeouts: ChainTimeouts | undefined,
  until: number | undefined,
): ChainDeadlines | undefined {
  const any = timeouts !== undefined && Object.values(timeouts).some((ms) => ms !== undefined);
  return any || until !== undefined ? new ChainDeadlines(timeouts, until) : undefined;
}

/** What a chain that ran past its limit decided: its trace entry, and the block message if it blocks. */
export interface PastDeadline {
  entry: TraceEntry;
  /** Set when the hook fails closed: the outcome is blocked with this message. */
  blockMessage: string | undefined;
}

/**
 * The end of a chain past its limit: who ran, who was cut off (`cut`, the handler it was waiting
 * for or that finished too late, its result discarded), who never ran, and how to give it more
 * time. Logged once per distinct message per handler, as a handler's failure is.
 */
function pastDeadline(
  decl: AnyHookDeclaration,
  limit: ChainLimit,
  trace: readonly TraceEntry[],
  handlers: readonly RegisteredHandler[],
  index: number,
  cut: RegisteredHandler | undefined,
  durationMs: number,
): PastDeadline {
  // The host's deadline is not the user's to choose: a command hook's comes from the environment
  // the agent gives it (`HERMES_HOOK_DEADLINE_MS`), which a project can set, so a short one would
  // let a prompt or a model request past a slow validator unchecked. Only the user's own
  // chainTimeoutMs may let a shaping chain go on with what finished.
  const hostCut = limit.source === 'host' && decl.defaultOnError !== 'block';
  const failClosed = decl.defaultOnError === 'block' || hostCut;
  const ran = names(trace.map((e) => e.extension));
  const notRun = names(
    handlers.slice(cut === undefined ? index : index + 1).map((h) => h.extension),
  );
  const parts = [`ran: ${ran}`];
  if (cut !== undefined) parts.push(`cut off: ${cut.extension}`);
  parts.push(`did not run: ${notRun}`);
  const what =
    limit.source === 'config'
      ? `its chainTimeoutMs of ${limit.ms} ms`
      : `the ${Math.max(0, limit.ms)} ms its host's deadline left it`;
  const raise =
    limit.source === 'config'
      ? `raise extensions.chain_timeout_ms.${decl.name} in the config (createRuntime's chainTimeoutMs)`
      : "give the host more time (a command hook's HERMES_HOOK_DEADLINE_MS, below the agent's hook timeout)";
  const consequence = hostCut
    ? "blocked (fails closed, the host's time)"
    : failClosed
      ? 'blocked (fails closed)'
      : 'went on with what finished (fails open)';
  const message = `the ${decl.name} chain ran past ${what} (${parts.join('; ')}): ${consequence}; ${raise}, or make its handlers faster`;
  const entry: TraceEntry = {
    extension: cut?.extension ?? FRAMEWORK_NAME,
    action: failClosed ? 'block' : 'error',
    durationMs,
    error: message,
  };
  if (cut?.phase === 'validate') entry.phase = 'validate';
  const logger = cut ?? handlers[index] ?? handlers[0];
  if (logger !== undefined) logOnce(logger, message);
  return { entry, blockMessage: failClosed ? `Blocked because ${message}.` : undefined };
}

/**
 * Ends a chain past its deadline with the hook's fail rule; `cut` is the handler that was running
 * then, if one was (the runner calls this only under a limit).
 */
export function endPastDeadline(
  state: ChainState,
  limit: ChainLimit,
  cut: RegisteredHandler | undefined,
  durationMs: number,
): ChainOutcome<unknown> {
  const { entry, blockMessage } = pastDeadline(
    state.decl,
    limit,
    state.trace,
    state.handlers,
    state.index,
    cut,
    durationMs,
  );
  state.trace.push(entry);
  if (state.onTrace !== undefined && cut !== undefined) {
    tellStep(state, cut, entry.action, durationMs, entry.error);
  }
  if (blockMessage !== undefined) blockChain(state, FRAMEWORK_NAME, blockMessage);
  return chainOutcome(state);
}

/** Distinct extension names, in order, as a list for a message. */
function names(extensions: readonly string[]): string {
  const distinct = [...new Set(extensions)];
  return distinct.length === 0 ? 'none' : distinct.join(', ');
}

/** Distinct messages logged per handler, at most, as for its own failures (handler-failure.ts). */
const MAX_LOGGED = 50;

function logOnce(handler: RegisteredHandler, message: string): void {
  if (handler.loggedErrors.has(message) || handler.loggedErrors.size >= MAX_LOGGED) return;
  handler.loggedErrors.add(message);
  try {
    handler.log.warn(message);
  } catch {
    // A host's logger that throws must not turn a decided outcome into a crash.
  }
}
