import { didYouMean } from '../config/suggest.js';
import { HOOK_NAMES, type HookName, isHookName } from '../hooks/index.js';

/** What other agents call these hook points, so a port from them gets a precise hint. */
const PEER_NAMES: Readonly<Record<string, HookName>> = {
  input: 'transform_user_input',
  UserPromptSubmit: 'transform_user_input',
  BeforeAgent: 'transform_user_input',
  before_agent_start: 'before_llm_call',
  BeforeModel: 'before_llm_call',
  tool_call: 'intercept_tool_call',
  PreToolUse: 'intercept_tool_call',
  BeforeTool: 'intercept_tool_call',
  pre_tool_call: 'intercept_tool_call',
  tool_result: 'transform_tool_result',
  AfterTool: 'transform_tool_result',
  PostToolUse: 'transform_tool_result',
  post_tool_call: 'transform_tool_result',
  processToolResult: 'transform_tool_result',
  transform_llm_output: 'transform_final_answer',
  afterAgentResponse: 'transform_final_answer',
  AfterAgent: 'transform_final_answer',
  Stop: 'transform_final_answer',
  processOutputResult: 'transform_final_answer',
};

export function assertHookName(name: unknown): asserts name is HookName {
  if (isHookName(name)) return;
  const text = typeof name === 'string' ? `"${name}"` : String(name);
  const suggestion =
    typeof name === 'string' ? (PEER_NAMES[name] ?? didYouMean(name, HOOK_NAMES)) : undefined;
  const hint = suggestion ? ` Did you mean "${suggestion}"?` : '';
  throw new TypeError(`unknown hook ${text}.${hint} Hooks are: ${HOOK_NAMES.join(', ')}.`);
}
