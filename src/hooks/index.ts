import { beforeLlmCall } from './before-llm-call.js';
import { interceptToolCall } from './intercept-tool-call.js';
import { transformUserInput } from './transform-user-input.js';

/** The three hook points, in the order they fire within a turn. */
export const HOOKS = {
  transform_user_input: transformUserInput,
  before_llm_call: beforeLlmCall,
  intercept_tool_call: interceptToolCall,
} as const;

export type HookName = keyof typeof HOOKS;
export const HOOK_NAMES = Object.keys(HOOKS) as HookName[];

export function isHookName(name: unknown): name is HookName {
  return typeof name === 'string' && Object.hasOwn(HOOKS, name);
}
