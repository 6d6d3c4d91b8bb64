import { type ChainOutcome, unchangedOutcome } from '../chain/outcome.js';
import { runChain } from '../chain/run-chain.js';
import type { BeforeLlmCallInput, LlmRequest } from '../hooks/before-llm-call.js';
import type { TurnContext } from '../hooks/declaration.js';
import { HOOKS } from '../hooks/index.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
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
      throw new TypeError('transformUserInput(userMessage): userMessage must be a string');
    }
    return runChain(
      HOOKS.transform_user_input,
      this.#handlers.forHook('transform_user_input'),
      userMessage,
      this,
    );
  }

  beforeLlmCall(request: BeforeLlmCallInput): MaybePromise<ChainOutcome<LlmRequest>> {
    this.assertOpen();
    if (typeof request?.systemPrompt !== 'string' || !Array.isArray(request.messages)) {
      throw new TypeError(
        'beforeLlmCall(request): needs { systemPrompt: string, messages: ChatMessage[] }',
      );
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
      throw new TypeError('interceptToolCall(call): needs { toolName: string, toolArgs: object }');
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
