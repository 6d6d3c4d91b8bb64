import type { CommandHookAgent } from './agents.js';

/**
 * What a hook misses without the events it is not registered for, worst first (one sentence
 * without a capital, or empty): what `doctor` says of an installed hook that lacks them, and
 * `hook install` of the events it leaves out for an older agent.
 */
export function missingEventsMean(agent: CommandHookAgent, absent: readonly string[]): string {
  if (absent.includes('PreToolUse')) return 'tool calls are not checked';
  const afterTools = absent.some((event) => agent.afterToolEvents.includes(event));
  const subagents = absent.some((event) => event.startsWith('Subagent'));
  const ofSubagents =
    "observers are not told of subagents, and a turn's state may end at the main agent's Stop while a background subagent still calls tools";
  if (afterTools && subagents)
    return `before_llm_call does not run after tool results; ${ofSubagents}`;
  if (afterTools) return 'before_llm_call does not run after tool results';
  if (absent.includes('PostToolUse'))
    return 'observers (audit-log, otel) are not told what tools did';
  if (subagents) return ofSubagents;
  if (absent.includes('PostToolUseFailure'))
    return "a failed tool's error reaches the model without what transform_tool_result adds to it (workflow-guard's advice on a write its sandbox refused)";
  if (absent.includes('SessionStart'))
    return "a session's first prompt waits for the project's extensions to load";
  return '';
}
