import { ChainDeadlines } from '../chain/chain-deadline.js';
import {
  type ChainOutcome,
  EMPTY_METADATA,
  type OnTrace,
  unchangedOutcome,
} from '../chain/outcome.js';
import { runChain } from '../chain/run-chain.js';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { BeforeLlmCallInput, LlmRequest } from '../hooks/before-llm-call.js';
import type { TurnContext } from '../hooks/declaration.js';
import { HOOKS, type HookName } from '../hooks/index.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { describeInput } from '../hooks/payload.js';
import type { ToolResultInput } from '../hooks/transform-tool-result.js';
import type { ObserverSink } from '../observe/observers.js';
import { TurnTelemetry } from '../observe/turn-telemetry.js';
import { TurnEndedError } from './errors.js';
import type { HandlerIndex } from './handler-index.js';
import type { PauseSwitch } from './pause-switch.js';
import type { GroundRule } from './protected-ground.js';
import { type PlainTools, preChainRefusal, TurnOffers } from './tool-call-gate.js';
import type { ToolCallPaths } from './tool-call-paths.js';

export type MaybePromise<T> = T | Promise<T>;
type CallOutcome = ChainOutcome<Record<string, unknown>>;

/** What a turn is built with, besides its ids: fixed when the runtime was built. */
export interface TurnChains {
  handlers: HandlerIndex;
  observers: ObserverSink;
  /** Whether anyone observes `hook_decision`: if not, a chain's outcome is returned untouched. */
  reportsDecisions: boolean;
  /** Told each handler's decision as it is made (`TurnOptions.onTrace`). */
  onTrace: OnTrace | undefined;
  /** The one form tool calls' paths are shown in (tool-call-paths.ts). */
  paths: ToolCallPaths;
  /** Each chain's time limit (chain-deadline.ts); undefined when no chain has one. */
  deadlines?: ChainDeadlines | undefined;
  /** The framework's protected-ground rule, judged before any handler (protected-ground.ts). */
  ground?: GroundRule | undefined;
  /** The kill switch, judged before anything else (pause-switch.ts). */
  pause?: PauseSwitch | undefined;
  /** The runtime's tool names whose calls need no chain (tool-call-gate.ts). */
  plain: PlainTools;
}

/** Set once, below: the framework's own hosts reach a turn's telemetry through `turnTelemetry`. */
let telemetryOf: (turn: Turn) => TurnTelemetry;
/** Set once, below: runs `fn` with the turn's chains under a deadline of one host call (run-hook.ts). */
let underDeadline: <T>(turn: Turn, until: number, fn: () => T) => T;

/**
 * One turn of one session: its chains, sharing one `state` object that is emptied when the
 * turn ends. Each chain returns its outcome directly when every handler was synchronous, and a
 * promise otherwise; `await` works on both. The turn reports each decision that was not a plain
 * pass as `hook_decision` itself, whichever host runs it.
 */
export class Turn implements TurnContext {
  readonly state: Record<string, unknown> = {};
  readonly #chains: TurnChains;
  /** Also held directly: the no-chain answer of `interceptToolCall` is the hottest path. */
  readonly #plain: PlainTools;
  #telemetry: TurnTelemetry | undefined;
  /** The tools each agent's last model request offered (tool-call-gate.ts). */
  readonly #offers = new TurnOffers();
  #ended = false;

  static {
    telemetryOf = (turn) =>
      (turn.#telemetry ??= new TurnTelemetry(turn.#chains.observers, {
        session_id: turn.sessionId,
        turn_id: turn.turnId,
        task_id: turn.turnId,
        platform: turn.platform,
      }));
    underDeadline = (turn, until, fn) => {
      // Every Turn method reads its chain's limit before it first awaits, so the call's deadline
      // is in place exactly while its chain starts.
      const chains = turn.#chains;
      const before = chains.deadlines;
      chains.deadlines = (before ?? new ChainDeadlines(undefined, undefined)).by(until);
      try {
        return fn();
      } finally {
        chains.deadlines = before;
      }
    };
  }

  constructor(
    readonly sessionId: string,
    readonly turnId: string,
    readonly platform: string,
    chains: TurnChains,
  ) {
    this.#chains = chains;
    this.#plain = chains.plain;
  }

  transformUserInput(userMessage: string): MaybePromise<ChainOutcome<string>> {
    this.assertOpen();
    if (typeof userMessage !== 'string') {
      throw inputError('transform_user_input', 'transformUserInput', 'userMessage', {
        userMessage,
      });
    }
    const { handlers, onTrace, reportsDecisions } = this.#chains;
    const outcome = runChain(
      HOOKS.transform_user_input,
      handlers.forHook('transform_user_input'),
      { userMessage },
      this,
      onTrace,
      this.#chains.deadlines?.limit('transform_user_input'),
    );
    return reportsDecisions ? this.#reported('transform_user_input', outcome) : outcome;
  }

  beforeLlmCall(request: BeforeLlmCallInput): MaybePromise<ChainOutcome<LlmRequest>> {
    this.assertOpen();
    if (typeof request?.systemPrompt !== 'string' || !Array.isArray(request.messages)) {
      throw inputError('before_llm_call', 'beforeLlmCall', 'request', request);
    }
    const { handlers, onTrace, reportsDecisions } = this.#chains;
    const outcome = runChain(
      HOOKS.before_llm_call,
      handlers.forHook('before_llm_call'),
      request,
      this,
      onTrace,
      this.#chains.deadlines?.limit('before_llm_call'),
    );
    const reported = reportsDecisions
      ? this.#reported('before_llm_call', outcome, undefined, request.agent)
      : outcome;
    if (reported instanceof Promise) {
      return reported.then((settled) => {
        if (!this.#ended) this.#offers.offer(settled, request.agent?.id);
        return settled;
      });
    }
    if (!this.#ended) this.#offers.offer(reported, request.agent?.id);
    return reported;
  }

  interceptToolCall(call: ToolCallInput): MaybePromise<CallOutcome> {
    this.assertOpen();
    if (
      typeof call?.toolName !== 'string' ||
      call.toolArgs === null ||
      typeof call.toolArgs !== 'object'
    ) {
      throw inputError('intercept_tool_call', 'interceptToolCall', 'call', call);
    }
    const refused = preChainRefusal(call, this.#chains.pause, this.#offers);
    if (refused !== undefined) return this.#reportedRefusal(refused, call);
    // The hottest path, a tool with no chain to run: nothing below would look at the call. The
    // outcome is `unchangedOutcome`'s, made here: V8 does not inline that call into this method,
    // and the call and an allocation site shared with every other caller cost a third of this path
    // (BENCHMARKS.md, "Dispatch with no handler: the outcome made in place").
    if (this.#plain.has(call.toolName)) {
      return {
        blocked: false,
        changed: false,
        value: call.toolArgs,
        metadata: EMPTY_METADATA,
        trace: [],
      };
    }
    // Read now: a host call's deadline is in place only while this method runs (run-hook.ts).
    const deadlines = this.#chains.deadlines;
    const ground = this.#chains.ground?.refusal(call);
    if (ground === undefined) return this.#intercepted(call, deadlines);
    if (!(ground instanceof Promise)) return this.#reportedRefusal(ground, call);
    return ground.then((refused) =>
      refused === undefined
        ? this.#intercepted(call, deadlines)
        : this.#reportedRefusal(refused, call),
    );
  }

  /** A refusal the framework decided itself, reported as a decision when anyone observes them. */
  #reportedRefusal(refused: CallOutcome, call: ToolCallInput): MaybePromise<CallOutcome> {
    return this.#chains.reportsDecisions
      ? this.#reported('intercept_tool_call', refused, call)
      : refused;
  }

  /** The handlers' chain for a call the framework's own rules let through. */
  #intercepted(
    call: ToolCallInput,
    deadlines: ChainDeadlines | undefined,
  ): MaybePromise<CallOutcome> {
    const handlers = this.#chains.handlers.forTool(call.toolName);
    const chains = this.#chains;
    // No handler, and a tool the protected-ground rule judges (else `PlainTools` answered): no
    // chain machinery (a plain pass is no decision to report, the sandbox is the framework's).
    if (handlers.length === 0) {
      const plain = unchangedOutcome(call.toolArgs);
      const ground = chains.ground;
      if (ground === undefined) return plain;
      const contained = ground.contained(call, plain);
      return contained === plain || !chains.reportsDecisions
        ? contained
        : this.#reported('intercept_tool_call', contained, call);
    }
    // Handlers see paths in one form for every host; the outcome goes back in the host's form.
    const seen = chains.paths.seen(call.toolArgs);
    const settled = runChain(
      HOOKS.intercept_tool_call,
      handlers,
      call,
      this,
      chains.onTrace,
      deadlines?.limit('intercept_tool_call'),
      seen.args,
    );
    const back =
      seen.back === undefined
        ? settled
        : settled instanceof Promise
          ? settled.then(seen.back)
          : seen.back(settled);
    // The protected-ground sandbox wraps the command as it will run, after every handler.
    const ground = chains.ground;
    const outcome =
      ground === undefined
        ? back
        : back instanceof Promise
          ? back.then((done) => ground.contained(call, done))
          : ground.contained(call, back);
    return chains.reportsDecisions ? this.#reported('intercept_tool_call', outcome, call) : outcome;
  }

  /**
   * What the model gets back from a tool call that ran (docs/chain-semantics.md, Tool results):
   * the outcome's value is the result to hand on; a blocked outcome means hand on the refusal
   * (`blockedToolResult`) instead. With no handler for the tool it is the result, untouched.
   */
  transformToolResult(call: ToolResultInput): MaybePromise<ChainOutcome<unknown>> {
    this.assertOpen();
    if (
      typeof call?.toolName !== 'string' ||
      call.toolArgs === null ||
      typeof call.toolArgs !== 'object'
    ) {
      throw inputError('transform_tool_result', 'transformToolResult', 'call', call);
    }
    const handlers = this.#chains.handlers.forToolOf('transform_tool_result', call.toolName);
    if (handlers.length === 0) return unchangedOutcome(call.result);
    const chains = this.#chains;
    // Handlers read paths in the one form every host shows them in, as for the call itself.
    const shown = chains.paths.shown(call.toolArgs);
    const seen = shown === undefined ? call : { ...call, toolArgs: shown.args };
    const outcome = runChain(
      HOOKS.transform_tool_result,
      handlers,
      seen,
      this,
      chains.onTrace,
      chains.deadlines?.limit('transform_tool_result'),
    );
    return chains.reportsDecisions
      ? this.#reported('transform_tool_result', outcome, call, call.agent)
      : outcome;
  }

  /**
   * The main agent's last answer of the turn, before the user sees it (docs/chain-semantics.md,
   * The final answer): the outcome's value is the answer to show; a blocked outcome means show
   * its message instead. With no handler it is the answer, untouched.
   */
  transformFinalAnswer(answer: string): MaybePromise<ChainOutcome<string>> {
    this.assertOpen();
    if (typeof answer !== 'string') {
      throw inputError('transform_final_answer', 'transformFinalAnswer', 'answer', { answer });
    }
    const { handlers, onTrace, reportsDecisions } = this.#chains;
    const outcome = runChain(
      HOOKS.transform_final_answer,
      handlers.forHook('transform_final_answer'),
      { answer },
      this,
      onTrace,
      this.#chains.deadlines?.limit('transform_final_answer'),
    );
    return reportsDecisions ? this.#reported('transform_final_answer', outcome) : outcome;
  }

  /** Whether any handler is registered on `hook`: a host may skip work only a handler needs. */
  hasHandlers(hook: HookName): boolean {
    return this.#chains.handlers.has(hook);
  }

  /** Ends the turn: the state is emptied so nothing of it reaches the next turn. */
  end(): void {
    this.#ended = true;
    this.#offers.clear();
    for (const key of Object.keys(this.state)) delete this.state[key];
  }

  private assertOpen(): void {
    if (this.#ended) throw new TurnEndedError(this.sessionId, this.turnId);
  }

  /** The outcome, once reported as `hook_decision`; still synchronous when the chain was. */
  #reported<V>(
    hook: HookName,
    outcome: MaybePromise<ChainOutcome<V>>,
    call?: ToolCallInput,
    agent: AgentIdentity | undefined = call?.agent,
  ): MaybePromise<ChainOutcome<V>> {
    if (outcome instanceof Promise) {
      return outcome.then((settled) => {
        telemetryOf(this).decision(hook, settled, call, agent);
        return settled;
      });
    }
    telemetryOf(this).decision(hook, outcome, call, agent);
    return outcome;
  }
}

/**
 * The observer events of a turn, for the framework's own hosts (not exported by the package):
 * one per turn, so what a host reports and the decisions the turn reports carry the same ids.
 */
export function turnTelemetry(turn: Turn): TurnTelemetry {
  return telemetryOf(turn);
}

/**
 * Runs `fn` with the turn's chains under the deadline of one host call (`until`, a `Date.now()`
 * time): for run-hook.ts, which hosts that serve every hook alike call.
 */
export function withTurnDeadline<T>(turn: Turn, until: number, fn: () => T): T {
  return underDeadline(turn, until, fn);
}

/** A Turn method's argument that failed its cheap check, worded from the hook's schema. */
function inputError(hook: HookName, method: string, argument: string, input: unknown): TypeError {
  return new TypeError(`${method}(${argument}): ${describeInput(HOOKS[hook], input, argument)}`);
}
