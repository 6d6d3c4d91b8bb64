import type { ChainOutcome } from '../chain/outcome.js';
import type { HookInput, HookName, HookValue } from '../hooks/index.js';
import { type MaybePromise, type Turn, withTurnDeadline } from './turn.js';

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
  return withTurnDeadline(turn, deadline, () => RUN_HOOK[hook](turn, input));
}
