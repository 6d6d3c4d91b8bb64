import type { SubagentSpawn } from 'hermes-extensions';
import type { Refusal } from './check-tool.js';

/**
 * How a call that starts a subagent is judged before a plan, for a tool that is neither a writer
 * nor a shell (those are judged by what they write whatever the host says: a host that marked
 * `Write` as a spawn must not turn it into an allowed call).
 *
 * - Covered (`spawn.covered`): the call passes. The spawn itself changes nothing; the subagent
 *   does, and each of its calls comes through this guard as a call of its own and is judged like
 *   the main agent's (a write to `src/` before a plan is refused there). Refusing the spawn would
 *   only take away a subagent that reads or writes the plan.
 * - Not covered: refused, and never put to a person (`unclear`): whatever the subagent does would
 *   pass no guard, so approving the spawn would approve writes nobody sees. The message passes
 *   on why (the host's `reason`) and the two ways on: write the plan first, or run an agent
 *   version whose subagents' calls reach the hooks.
 * - No `spawn` (a host that does not know the tool starts a subagent): undefined, and the tool
 *   is judged as any other it does not know.
 */
export function judgeSpawn(
  tool: string,
  spawn: SubagentSpawn | undefined,
): { refusal: Refusal | undefined } | undefined {
  if (spawn === undefined) return undefined;
  if (spawn.covered) return { refusal: undefined };
  return {
    refusal: {
      what: `${tool} starts a subagent whose tool calls would not be checked (${spawn.reason ?? 'the host does not say why'})`,
      hint: "Or upgrade the agent to a version whose subagents' tool calls reach the hooks (`hermes extensions doctor` says which).",
      kind: 'unclear',
    },
  };
}
