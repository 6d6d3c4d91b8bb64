import type { P } from 'ts-pattern';
import type { BeforeLlmCallEvent, LlmRequest } from './before-llm-call.js';
import type { OnErrorPolicy } from './declaration.js';
import type { HookName } from './index.js';
import type { InterceptToolCallEvent } from './intercept-tool-call.js';
import type {
  AskResult,
  BlockResult,
  InjectSystemResult,
  InjectUserResult,
  PassResult,
  RestrictToolsResult,
  RewriteResult,
} from './results.js';
import type { TransformFinalAnswerEvent } from './transform-final-answer.js';
import type { TransformToolResultEvent } from './transform-tool-result.js';
import type { TransformUserInputEvent } from './transform-user-input.js';

/** What each hook's handlers receive. */
export interface HookEventMap {
  transform_user_input: TransformUserInputEvent;
  before_llm_call: BeforeLlmCallEvent;
  intercept_tool_call: InterceptToolCallEvent;
  transform_tool_result: TransformToolResultEvent;
  transform_final_answer: TransformFinalAnswerEvent;
}

/** What each hook's handlers may return (plus `undefined`/`null` for pass). */
export interface HookResultMap {
  transform_user_input: PassResult | RewriteResult<string> | BlockResult;
  before_llm_call:
    | PassResult
    | InjectSystemResult
    | InjectUserResult
    | RewriteResult<Partial<Pick<LlmRequest, 'systemPrompt' | 'messages'>>>
    | RestrictToolsResult
    | BlockResult;
  intercept_tool_call:
    | PassResult
    | RewriteResult<Record<string, unknown>>
    | BlockResult
    | AskResult;
  transform_tool_result: PassResult | RewriteResult<unknown> | BlockResult;
  transform_final_answer: PassResult | RewriteResult<string> | BlockResult;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing passes
export type HandlerReturn<H extends HookName> = HookResultMap[H] | undefined | null | void;

export type HookHandler<H extends HookName> = (
  event: HookEventMap[H],
) => HandlerReturn<H> | PromiseLike<HandlerReturn<H>>;

/** A handler registered with `when: pattern`: it is only called with events the pattern matches. */
export type MatchedHookHandler<H extends HookName, W> = (
  event: P.narrow<HookEventMap[H], W>,
) => HandlerReturn<H> | PromiseLike<HandlerReturn<H>>;

/** The hooks that run once per tool call, whose handlers may name the tools they are for. */
export type ToolHookName = 'intercept_tool_call' | 'transform_tool_result';

/** A tool name (exact match), a pattern, or a list of either. */
export type ToolPattern = string | RegExp | ReadonlyArray<string | RegExp>;

/**
 * When in its chain a handler runs. Every `mutate` handler runs before every `validate` one, so a
 * validator sees the value the host will act on and no later rewrite can undo its check (as
 * Kubernetes runs mutating admission before validating admission). A validator may only pass or
 * block; a rewrite or an injection from it is a handler error.
 */
export type HandlerPhase = 'mutate' | 'validate';

export interface HandlerOptions<H extends HookName = HookName> {
  /** Lower runs earlier. Default 100. */
  priority?: number;
  /** Per-handler limit for an async handler to settle (ms). Default 5000. */
  timeoutMs?: number;
  /** What a throw, rejection, invalid result or timeout means. Default: docs/chain-semantics.md, An extension. */
  onError?: OnErrorPolicy;
  /** `intercept_tool_call` and `transform_tool_result` only: call this handler for matching tool names only. */
  tools?: H extends ToolHookName ? ToolPattern : never;
  /** `'validate'` for guards: run after every rewriting handler, on the final value. Default `'mutate'`. */
  phase?: HandlerPhase;
  /**
   * Extension names: run before every handler of theirs in this chain (same hook, same phase),
   * whatever the priorities. A name with no handler there orders nothing (docs/chain-semantics.md,
   * Order by name).
   */
  before?: string | readonly string[];
  /** Extension names: run after every handler of theirs in this chain (same hook, same phase). */
  after?: string | readonly string[];
  /**
   * A ts-pattern pattern (`P` is re-exported) over the event: the handler runs only for events
   * that match it, checked on the event as it is when the handler's turn comes (after earlier
   * rewrites), and its event type is narrowed to the pattern (docs/chain-semantics.md,
   * Matching calls with `when`). Without it the handler runs for every event and nothing is matched.
   */
  when?: P.Pattern<HookEventMap[H]>;
}
