import type { BeforeLlmCallEvent, LlmRequest } from './before-llm-call.js';
import type { OnErrorPolicy } from './declaration.js';
import type { HookName } from './index.js';
import type { InterceptToolCallEvent } from './intercept-tool-call.js';
import type {
  BlockResult,
  InjectSystemResult,
  InjectUserResult,
  PassResult,
  RewriteResult,
} from './results.js';
import type { TransformUserInputEvent } from './transform-user-input.js';

/** What each hook's handlers receive. */
export interface HookEventMap {
  transform_user_input: TransformUserInputEvent;
  before_llm_call: BeforeLlmCallEvent;
  intercept_tool_call: InterceptToolCallEvent;
}

/** What each hook's handlers may return (plus `undefined`/`null` for pass). */
export interface HookResultMap {
  transform_user_input: PassResult | RewriteResult<string> | BlockResult;
  before_llm_call:
    | PassResult
    | InjectSystemResult
    | InjectUserResult
    | RewriteResult<Partial<LlmRequest>>
    | BlockResult;
  intercept_tool_call: PassResult | RewriteResult<Record<string, unknown>> | BlockResult;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing passes
export type HandlerReturn<H extends HookName> = HookResultMap[H] | undefined | null | void;

export type HookHandler<H extends HookName> = (
  event: HookEventMap[H],
) => HandlerReturn<H> | PromiseLike<HandlerReturn<H>>;

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
  /** What a throw, rejection, invalid result or timeout means. Default: README, An extension. */
  onError?: OnErrorPolicy;
  /** `intercept_tool_call` only: call this handler for matching tool names only. */
  tools?: H extends 'intercept_tool_call' ? ToolPattern : never;
  /** `'validate'` for guards: run after every rewriting handler, on the final value. Default `'mutate'`. */
  phase?: HandlerPhase;
}
