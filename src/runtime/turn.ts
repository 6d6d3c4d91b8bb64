import { type ChainOutcome, unchangedOutcome } from '../chain/outcome.js';
import { runChain } from '../chain/run-chain.js';
import type { BeforeLlmCallInput, LlmRequest } from '../hooks/before-llm-call.js';
import type { TurnContext } from '../hooks/declaration.js';
import { HOOKS, type HookInput, type HookName, type HookValue } from '../hooks/index.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { describeInput } from '../hooks/payload.js';
import type { ObserverSink } from '../observe/observers.js';
import { TurnEndedError } from './errors.js';
import type { HandlerIndex } from './handler-index.js';

export type MaybePromise<T> = T | Promise<T>;

/**
 * One turn of one session: the three chains, sharing one `state` object that is emptied when the
 * turn ends. Each chain returns its outcome directly when every handler was synchronous, and a
 * promise otherwise; `await` works on both.
 */
export class Turn implements TurnContext {
  readonly state: Record<string, unknown> = {};
  readonly #handlers: HandlerIndex;
  #ended = false;

  constructor(
    readonly sessionId: string,
    readonly turnId: string,
    readonly platform: string,
    handlers: HandlerIndex,
    /** The runtime's observers, for hosts that report this turn (`TurnTelemetry`). */
    readonly observers: ObserverSink,
    readonly onStep?: TurnContext['onStep'],
  ) {
    this.#handlers = handlers;
  }

  transformUserInput(userMessage: string): MaybePromise<ChainOutcome<string>> {
    this.assertOpen();
    if (typeof userMessage !== 'string') {
      throw inputError('transform_user_input', 'transformUserInput', 'userMessage', {
        userMessage,
      });
    }
    return runChain(
      HOOKS.transform_user_input,
      this.#handlers.forHook('transform_user_input'),
      { userMessage },
      this,
    );
  }

  beforeLlmCall(request: BeforeLlmCallInput): MaybePromise<ChainOutcome<LlmRequest>> {
    this.assertOpen();
    if (typeof request?.systemPrompt !== 'string' || !Array.isArray(request.messages)) {
      throw inputError('before_llm_call', 'beforeLlmCall', 'request', request);
    }
    return runChain(
      HOOKS.before_llm_call,
      this.#handlers.forHook('before_llm_call'),
      request,
      this,
    );
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
    const handlers = this.#handlers.forTool(call.toolName);
    // The hot case of a host with no tool guard: answer before any chain machinery.
    if (handlers.length === 0) return unchangedOutcome(call.toolArgs);
    return runChain(HOOKS.intercept_tool_call, handlers, call, this);
  }

  /** Ends the turn: the state is emptied so nothing of it reaches the next turn. */
  end(): void {
    this.#ended = true;
    for (const key of Object.keys(this.state)) delete this.state[key];
  }

  private assertOpen(): void {
    if (this.#ended) throw new TurnEndedError(this.sessionId, this.turnId);
  }
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
};

/**
 * Runs `hook` in `turn` on a payload read with its declaration (`hooks/payload.ts`): for the edges
 * that serve every hook alike (the bridge, `hermes extensions test`, `doctor`).
 */
export function runHook<H extends HookName>(
  turn: Turn,
  hook: H,
  input: HookInput<H>,
): MaybePromise<ChainOutcome<HookValue<H>>> {
  return RUN_HOOK[hook](turn, input);
}
