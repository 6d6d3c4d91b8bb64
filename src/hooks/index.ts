import { beforeLlmCall } from './before-llm-call.js';
import type { HookDeclaration } from './declaration.js';
import { interceptToolCall } from './intercept-tool-call.js';
import { transformFinalAnswer } from './transform-final-answer.js';
import { transformToolResult } from './transform-tool-result.js';
import { transformUserInput } from './transform-user-input.js';

/** The hook points, in the order they fire within a turn. */
export const HOOKS = {
  transform_user_input: transformUserInput,
  before_llm_call: beforeLlmCall,
  intercept_tool_call: interceptToolCall,
  transform_tool_result: transformToolResult,
  transform_final_answer: transformFinalAnswer,
} as const;

export type HookName = keyof typeof HOOKS;
export const HOOK_NAMES = Object.keys(HOOKS) as HookName[];

export function isHookName(name: unknown): name is HookName {
  return typeof name === 'string' && Object.hasOwn(HOOKS, name);
}

type DeclarationOf<H extends HookName> = (typeof HOOKS)[H];
/** The payload a host hands to `H` (the Turn method's argument, as named fields). */
export type HookInput<H extends HookName> =
  DeclarationOf<H> extends HookDeclaration<infer Input, infer _Value, infer _Event> ? Input : never;
/** The value `H`'s chain threads and its outcome carries. */
export type HookValue<H extends HookName> =
  DeclarationOf<H> extends HookDeclaration<infer _Input, infer Value, infer _Event> ? Value : never;

/** `hook`'s declaration typed by its payload and value (TypeScript cannot see through `HOOKS[H]`). */
export function declarationOf<H extends HookName>(
  hook: H,
): HookDeclaration<HookInput<H>, HookValue<H>, unknown> {
  return HOOKS[hook] as unknown as HookDeclaration<HookInput<H>, HookValue<H>, unknown>;
}
