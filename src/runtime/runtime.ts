import { randomUUID } from 'node:crypto';
import { type ChainTimeouts, chainDeadlinesOf } from '../chain/chain-deadline.js';
import type { OnTrace } from '../chain/outcome.js';
import { SandboxDenyRead } from '../extensions/sandbox-deny-read.js';
import type { RegisteredCloser } from '../extensions/setup.js';
import type { Diagnostic, ExtensionInfo } from '../extensions/types.js';
import { isHookName } from '../hooks/index.js';
import { isObserverEvent, type ObserverEvent } from '../observe/events.js';
import { NO_OBSERVERS, type ObserverIndex } from '../observe/observers.js';
import { OBSERVER_CLOSE_TIMEOUT_MS, runClosers } from './close.js';
import { RuntimeClosedError, TurnInProgressError } from './errors.js';
import type { HandlerIndex } from './handler-index.js';
import type { LoadFailure } from './load-failures.js';
import { PauseSwitch } from './pause-switch.js';
import { GroundRule } from './protected-ground.js';
import { PlainTools } from './tool-call-gate.js';
import { ToolCallPaths } from './tool-call-paths.js';
import { Turn } from './turn.js';
import { publishTurnState, withdrawTurnState } from './turn-registry.js';

export interface TurnOptions {
  sessionId: string;
  /** Where the conversation happens (`cli`, `telegram`, …). Default `cli`. */
  platform?: string;
  /** Default: a random UUID. */
  turnId?: string;
  /** Told each handler's decision as it is made, with the value after it (debugging tools). */
  onTrace?: OnTrace;
  /** @deprecated The earlier name of `onTrace`; removed in 0.2. */
  onStep?: OnTrace;
  /**
   * What the turn's state starts with, for hosts whose turn spans several processes (command
   * hooks): they save the state at the end of each call and hand it back to the next.
   */
  initialState?: Record<string, unknown>;
  /**
   * When the host must have every chain's decision, as a `Date.now()` time (a command hook
   * answers before the agent's own hook timeout): each chain of the turn gets at most what is
   * left of it, or its `chainTimeoutMs` when that is less (docs/chain-semantics.md).
   */
  deadline?: number;
  /**
   * A trial, not an agent's turn (doctor's dry run, `hermes extensions test`): its chains run as
   * they would for the agent, and no observer hears of them, so a made-up call never reaches an
   * audit trail nor is counted as a decision the guards made.
   */
  trial?: boolean;
}

/** The loaded extensions and their chains. Built by `createRuntime` or `loadRuntime`. */
export class Runtime {
  readonly #handlers: HandlerIndex;
  readonly #observers: ObserverIndex;
  /** Fixed here, once: without an observer of `hook_decision`, turns report no decision. */
  readonly #reportsDecisions: boolean;
  readonly #turns = new Map<string, Turn>();
  readonly #closers: readonly RegisteredCloser[];
  readonly #paths: ToolCallPaths;
  readonly #ground: GroundRule;
  readonly #pause = new PauseSwitch();
  readonly #plain: PlainTools;
  readonly #denyRead: SandboxDenyRead;
  #closing: Promise<void> | undefined;

  constructor(
    handlers: HandlerIndex,
    observers: ObserverIndex,
    readonly extensions: readonly ExtensionInfo[],
    readonly diagnostics: readonly Diagnostic[],
    readonly projectRoot: string,
    /**
     * Enabled extensions that are not running because they failed to load (or were not found).
     * Under `extensions.on_load_error: block` (the default) every tool call is refused while
     * there is one.
     */
    readonly loadFailures: readonly LoadFailure[] = [],
    /** `extensions.on_load_error`: whether those failures refuse tool calls (`block`) or not. */
    readonly onLoadError: 'block' | 'warn' = 'block',
    /** What extensions registered with `hermes.onClose`, in load order. */
    closers: readonly RegisteredCloser[] = [],
    /** Each hook's whole-chain time limit (`chainTimeoutMs`, `extensions.chain_timeout_ms`). */
    readonly chainTimeouts: ChainTimeouts = {},
    /** `extensions.no_sandbox`, from the user's own config (protected-ground.ts). */
    noSandbox: 'refuse' | 'run' = 'refuse',
    /** What extensions keep from every sandboxed command (`hermes.denySandboxRead`). */
    denyRead: SandboxDenyRead = new SandboxDenyRead(),
    /** The user's own extensions the user's config names: protected ground (protected-ground.ts). */
    userCode: readonly string[] = [],
  ) {
    this.#handlers = handlers;
    this.#observers = observers;
    this.#reportsDecisions = observers.has('hook_decision');
    this.#closers = closers;
    this.#paths = new ToolCallPaths(projectRoot);
    this.#ground = new GroundRule(projectRoot, noSandbox, denyRead, userCode);
    this.#plain = new PlainTools(handlers, this.#ground);
    this.#denyRead = denyRead;
  }

  /**
   * Whether any enabled extension handles this hook or observes this event, so a host can skip
   * building a payload nobody would see. Always for `intercept_tool_call`: the framework's
   * protected-ground rule judges every tool call, handlers or not (protected-ground.ts), and a
   * host that skipped the call would skip the rule.
   */
  hasHook(name: string): boolean {
    if (name === 'intercept_tool_call') return true;
    if (isHookName(name)) return this.#handlers.has(name);
    return isObserverEvent(name) && this.#observers.has(name);
  }

  /**
   * The paths extensions keep from every sandboxed command, as they are now
   * (`hermes.denySandboxRead`; docs/policy.md, Files a sandboxed command may not read): what the
   * protected-ground sandbox hides, for a host or a tool that reads its line back.
   */
  sandboxDenyRead(): string[] {
    return this.#denyRead.paths();
  }

  /**
   * Tells the observers of `event` (docs/observing.md): the fields are passed as they
   * are (sanitize request and response payloads first), with `event` and
   * `telemetry_schema_version` added (to a copy). Returns at once; observers cannot slow or change
   * the agent.
   */
  emit(event: ObserverEvent, fields: Record<string, unknown>): void {
    this.#observers.emit(event, { ...fields });
  }

  /**
   * Runs `fn` as one turn of the session. Every chain run through `turn` shares `turn.state`;
   * the state is emptied and forgotten when the turn ends, whether `fn` resolves or throws.
   * Rejects with TurnInProgressError when the session already has a turn running.
   */
  async runTurn<T>(options: TurnOptions, fn: (turn: Turn) => T | Promise<T>): Promise<T> {
    const {
      sessionId,
      platform = 'cli',
      turnId = randomUUID(),
      onTrace = options?.onStep,
      initialState,
      deadline,
      trial = false,
    } = options ?? {};
    if (typeof sessionId !== 'string' || sessionId.length === 0) {
      throw new TypeError('runTurn: sessionId must be a non-empty string');
    }
    if (this.#closing) throw new RuntimeClosedError();
    if (this.#turns.has(sessionId)) throw new TurnInProgressError(sessionId);
    if (deadline !== undefined && !Number.isFinite(deadline)) {
      throw new TypeError(
        `runTurn: deadline must be a Date.now() time in milliseconds (got ${String(deadline)})`,
      );
    }
    const turn = new Turn(sessionId, turnId, platform, {
      handlers: this.#handlers,
      observers: trial ? NO_OBSERVERS : this.#observers,
      reportsDecisions: trial ? false : this.#reportsDecisions,
      onTrace,
      paths: this.#paths,
      ground: this.#ground,
      pause: this.#pause,
      plain: this.#plain,
      deadlines: chainDeadlinesOf(this.chainTimeouts, deadline),
    });
    if (initialState) Object.assign(turn.state, initialState);
    this.#turns.set(sessionId, turn);
    publishTurnState(sessionId, turn.state);
    try {
      return await fn(turn);
    } finally {
      withdrawTurnState(sessionId, turn.state);
      this.#turns.delete(sessionId);
      turn.end();
    }
  }

  /**
   * Lets go of the runtime (docs/hosts.md): from then on, no event reaches an observer and no new
   * turn starts (`runTurn` rejects with RuntimeClosedError); then it waits for the observers'
   * promises still pending (at most `timeoutMs`, default 5 000) and runs every extension's
   * `onClose` at once, each bounded by its own timeout. Whatever fails is logged; it never
   * rejects. Calling it again returns the same promise. The host that created the runtime calls
   * it before it exits, once its turns have ended: a turn still open is not waited for.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#pause.close();
    this.#closing ??= this.#observers
      .close(options.timeoutMs ?? OBSERVER_CLOSE_TIMEOUT_MS)
      .then(() => runClosers(this.#closers));
    return this.#closing;
  }

  /**
   * Resolves once the work observers have returned promises for so far has settled (an audit
   * line on the disk), or after `timeoutMs` (default 1 000); the runtime stays open and never
   * rejects. For a host that is about to do what could end it before that work is done: the hook
   * daemon's runtime thread waits on it before it takes its next event, which may be the one that
   * never yields.
   */
  observersSettled(options: { timeoutMs?: number } = {}): Promise<void> {
    return this.#observers.settled(options.timeoutMs ?? 1_000);
  }

  /** The state of the session's turn in progress, or undefined between turns. */
  getTurnState(sessionId: string): Record<string, unknown> | undefined {
    return this.#turns.get(sessionId)?.state;
  }
}
