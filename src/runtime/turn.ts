import { ChainDeadlines } from '../chain/chain-deadline.js';
import { type ChainOutcome, type OnTrace, unchangedOutcome } from '../chain/outcome.js';
import { runChain } from '../chain/run-chain.js';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { BeforeLlmCallInput, LlmRequest } from '../hooks/before-llm-call.js';
import type { TurnContext } from '../hooks/declaration.js';
import { HOOKS, type HookInput, type HookName, type HookValue } from '../hooks/index.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { describeInput } from '../hooks/payload.js';
import type { ToolResultInput } from '../hooks/transform-tool-result.js';
import type { ObserverSink } from '../observe/observers.js';
import { TurnTelemetry } from '../observe/turn-telemetry.js';
import { TurnEndedError } from './errors.js';
import type { HandlerIndex } from './handler-index.js';
import type { PauseSwitch } from './pause-switch.js';
import type { GroundRule } from './protected-ground.js';
import type { ToolCallPaths } from './tool-call-paths.js';
import {
  frameworkRefusal,
  NO_RESTRICTIONS,
  notOffered,
  type OfferedTools,
} from './tool-call-refusals.js';

export type MaybePromise<T> = T | Promise<T>;

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
}

/** Set once, below: the framework's own hosts reach a turn's telemetry through `turnTelemetry`. */
let telemetryOf: (turn: Turn) => TurnTelemetry;
/** Set once, below: runs `fn` with the turn's chains under a deadline of one host call (`runHook`). */
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
  /** Also held directly: the no-handler answer of `interceptToolCall` is the hottest path. */
  readonly #handlers: HandlerIndex;
  #telemetry: TurnTelemetry | undefined;
  /** The tools the main agent's last model request offered, when known (docs/hosts.md, Restricting the tools of a request). */
  #offered: OfferedTools | undefined;
  /**
   * The same for each subagent, by id, made when one first asks: a subagent run in-process has
   * tools of its own, and its requests must not change what its parent may call (nor the other
   * way round). Apart from `#offered` so the main agent's hot path stays one field read.
   */
  #subagentsOffered: Map<string, OfferedTools> | undefined;
  #ended = false;
  /**
   * The last tool name whose call, with no handler for it and not judged by the protected-ground
   * rule (a reader), was answered unchanged: the same name is answered so again at once. Both
   * facts are fixed for the runtime's life (its handlers and the rule's kinds), so it needs no
   * clearing; whatever changes within a turn (the offered tools) is still checked first.
   */
  #plainTool: string | undefined;

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
    this.#handlers = chains.handlers;
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
        this.#offer(settled, request.agent?.id);
        return settled;
      });
    }
    this.#offer(reported, request.agent?.id);
    return reported;
  }

  /** Remembers what the request offers; a blocked request is not made, so it offers nothing new. */
  #offer(outcome: ChainOutcome<LlmRequest>, agentId: string | undefined): void {
    if (outcome.blocked || this.#ended) return;
    const { tools, toolRestrictions } = outcome.value;
    const offered =
      tools === undefined
        ? undefined
        : { names: new Set(tools), restrictions: toolRestrictions ?? NO_RESTRICTIONS };
    if (agentId === undefined) this.#offered = offered;
    else if (offered === undefined) this.#subagentsOffered?.delete(agentId);
    else {
      this.#subagentsOffered ??= new Map();
      this.#subagentsOffered.set(agentId, offered);
    }
  }

  interceptToolCall(call: ToolCallInput): MaybePromise<ChainOutcome<Record<string, unknown>>> {
    this.assertOpen();
    if (
      typeof call?.toolName !== 'string' ||
      call.toolArgs === null ||
      typeof call.toolArgs !== 'object'
    ) {
      throw inputError('intercept_tool_call', 'interceptToolCall', 'call', call);
    }
    const paused = this.#chains.pause?.refusal(call);
    if (paused !== undefined) return this.#reportedRefusal(paused, call);
    const agent = call.agent;
    const offered = agent === undefined ? this.#offered : this.#subagentsOffered?.get(agent.id);
    if (offered !== undefined && !offered.names.has(call.toolName)) {
      return this.#reportedRefusal(notOffered(call, offered), call);
    }
    if (call.unjudgeable !== undefined) {
      return this.#reportedRefusal(frameworkRefusal(call, call.unjudgeable), call);
    }
    // The hottest path, a reader with no handler: nothing below would look at the call.
    if (call.toolName === this.#plainTool) return unchangedOutcome(call.toolArgs);
    // Read now: a host call's deadline is in place only while this method runs (`runHook`).
    const deadlines = this.#chains.deadlines;
    const ground = this.#chains.ground?.refusal(call);
    if (ground instanceof Promise) {
      return ground.then((refused) =>
        refused === undefined
          ? this.#intercepted(call, deadlines)
          : this.#reportedRefusal(refused, call),
      );
    }
    if (ground !== undefined) return this.#reportedRefusal(ground, call);
    return this.#intercepted(call, deadlines);
  }

  /** A refusal the framework decided itself, reported as a decision when anyone observes them. */
  #reportedRefusal(
    refused: ChainOutcome<Record<string, unknown>>,
    call: ToolCallInput,
  ): MaybePromise<ChainOutcome<Record<string, unknown>>> {
    return this.#chains.reportsDecisions
      ? this.#reported('intercept_tool_call', refused, call)
      : refused;
  }

  /** The handlers' chain for a call the framework's own rules let through. */
  #intercepted(
    call: ToolCallInput,
    deadlines: ChainDeadlines | undefined,
  ): MaybePromise<ChainOutcome<Record<string, unknown>>> {
    const handlers = this.#handlers.forTool(call.toolName);
    const chains = this.#chains;
    // The hot case of a host with no tool guard: answer before any chain machinery (a plain
    // pass is no decision to report, and the protected-ground sandbox is the framework's).
    if (handlers.length === 0) {
      const plain = unchangedOutcome(call.toolArgs);
      const ground = chains.ground;
      if (ground === undefined || !ground.judges(call.toolName)) {
        this.#plainTool = call.toolName;
        return plain;
      }
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
    const handlers = this.#handlers.forToolOf('transform_tool_result', call.toolName);
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
    return this.#handlers.has(hook);
  }

  /** Ends the turn: the state is emptied so nothing of it reaches the next turn. */
  end(): void {
    this.#ended = true;
    this.#offered = undefined;
    this.#subagentsOffered = undefined;
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

/** A Turn method's argument that failed its cheap check, worded from the hook's schema. */
function inputError(hook: HookName, method: string, argument: string, input: unknown): TypeError {
  return new TypeError(`${method}(${argument}): ${describeInput(HOOKS[hook], input, argument)}`);
}

/** Each hook through its Turn method, so a payload built from data gets the method's checks and fast paths. */
const RUN_HOOK: {
  readonly [H in HookName]: (
    turn: Turn,
    input: HookInput<H>,
  ) => MaybePromise<ChainOutcome<HookValue<H>>>;
} = {
  transform_user_input: (turn, input) => turn.transformUserInput(input.userMessage),
  before_llm_call: (turn, input) => turn.beforeLlmCall(input),
  intercept_tool_call: (turn, input) => turn.interceptToolCall(input),
  transform_tool_result: (turn, input) => turn.transformToolResult(input),
  transform_final_answer: (turn, input) => turn.transformFinalAnswer(input.answer),
};

/**
 * Runs `hook` in `turn` on a payload read with its declaration (`hooks/payload.ts`): for the edges
 * that serve every hook alike (the bridge, `hermes extensions test`, `doctor`).
 */
export function runHook<H extends HookName>(
  turn: Turn,
  hook: H,
  input: HookInput<H>,
  /** When this call must be decided, as a `Date.now()` time (the bridge's `deadline_ms`). */
  deadline?: number,
): MaybePromise<ChainOutcome<HookValue<H>>> {
  if (deadline === undefined) return RUN_HOOK[hook](turn, input);
  return underDeadline(turn, deadline, () => RUN_HOOK[hook](turn, input));
}
