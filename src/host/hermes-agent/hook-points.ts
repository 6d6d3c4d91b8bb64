import type { HermesRegistration } from './registration.js';

/** One hook point of this package and what it becomes in the Hermes agent. */
export interface HermesHookPoint {
  point: string;
  becomes: string;
}

const TURN_REFUSED = "a block refuses the turn's tool calls (the model is told why)";
const ONCE_PER_TURN =
  'pre_llm_call, once per turn: injections go as added context; message rewrites and restrictTools are not applied';
/**
 * A `modify` is merged over the call's arguments where Hermes takes one; Hermes 0.19.0 has no
 * `modify` at all (hermes_cli/plugins.py, `_get_pre_tool_call_directive_details`, reads block and
 * approve; agent/shell_hooks.py, `_parse_response`, block only), so there the call runs as asked.
 */
const MERGED =
  'a rewrite is a modify, merged over the arguments (one that drops an argument is refused), which Hermes 0.19.0 and earlier ignore: the call runs as asked';

/**
 * What each hook point becomes under the shell hooks (agents/hermes-agent.ts): fixed, since the
 * hook answers in Hermes' shell-hook wire whatever Hermes' version. Hermes 0.19.0 reads `block`
 * only at `pre_tool_call` (agent/shell_hooks.py, `_parse_response`), and an answer it does not
 * read lets the call run as written: an ask is a block, a rewrite is a refusal, and a terminal
 * call runs only where it was judged (its absolute `workdir`; agents/hermes-agent-calls.ts).
 */
export function shellHookPoints(): HermesHookPoint[] {
  return [
    {
      point: 'transform_user_input',
      becomes: `pre_llm_call, once per turn: a rewrite goes as added context (the user's text stays); ${TURN_REFUSED}`,
    },
    { point: 'before_llm_call', becomes: `${ONCE_PER_TURN}; ${TURN_REFUSED}` },
    {
      point: 'intercept_tool_call',
      becomes: `pre_tool_call: a block; a rewrite is a refusal that names the extension (Hermes 0.19.0 reads no modify from a shell hook: the plugin applies rewrites); a terminal call is judged in its absolute workdir and runs there unchanged, one without is refused with the folder to name; an ask is a block that says who asked (Hermes 0.19.0 and earlier take no approve from a shell hook)`,
    },
    { point: 'transform_tool_result', becomes: 'not run (a shell hook cannot replace a result)' },
    { point: 'transform_final_answer', becomes: 'not run' },
    { point: 'observers', becomes: 'pre_llm_call, pre_tool_call, post_tool_call, on_session_end' },
  ];
}

/** What each hook point becomes under the plugin, from what it registered in this Hermes. */
export function pluginHookPoints(registration: HermesRegistration): HermesHookPoint[] {
  const hook = new Set(registration.hooks);
  const middleware = new Set(registration.middleware);
  const shortCircuit = middleware.has('llm_execution')
    ? 'a block answers with the refusal, without a model request (llm_execution)'
    : TURN_REFUSED;
  const notRun = 'not run (the plugin registered nothing for it)';
  const userInput = middleware.has('llm_request')
    ? `llm_request: a rewrite replaces the user's message in every model request of the turn; ${shortCircuit}`
    : hook.has('pre_llm_call')
      ? `pre_llm_call, once per turn: a rewrite goes as added context (the user's text stays); ${TURN_REFUSED}`
      : notRun;
  const beforeLlm = middleware.has('llm_request')
    ? `llm_request, before every model request (retries and fallbacks too): injections, message rewrites and restrictTools are applied; ${shortCircuit}`
    : hook.has('pre_llm_call')
      ? `${ONCE_PER_TURN}; ${TURN_REFUSED}`
      : notRun;
  const rewrite = middleware.has('tool_request')
    ? 'a rewrite replaces the arguments (tool_request)'
    : MERGED;
  const toolCall = hook.has('pre_tool_call')
    ? `pre_tool_call: a block; an ask goes to Hermes' approval gate (refused where nobody can answer); ${rewrite}`
    : 'not run: no tool call is checked';
  const result = middleware.has('tool_execution')
    ? "tool_execution, over every tool's result (delegate_task too); withheld when the chain fails"
    : hook.has('transform_tool_result')
      ? "transform_tool_result: Hermes hands the model the first string a plugin returns; a subagent's result is not seen"
      : notRun;
  const finalAnswer = hook.has('transform_llm_output')
    ? 'transform_llm_output: a block replaces the answer (text already streamed stays shown)'
    : notRun;
  // Every hook but the transforms tells observers something (clients/hermes-agent-plugin/hooks.py).
  const observed = registration.hooks.filter((name) => !name.startsWith('transform_'));
  return [
    { point: 'transform_user_input', becomes: userInput },
    { point: 'before_llm_call', becomes: beforeLlm },
    { point: 'intercept_tool_call', becomes: toolCall },
    { point: 'transform_tool_result', becomes: result },
    { point: 'transform_final_answer', becomes: finalAnswer },
    { point: 'observers', becomes: observed.join(', ') || notRun },
  ];
}
