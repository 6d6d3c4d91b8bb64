import { z } from 'zod';

/**
 * Set by the host on a tool call that starts a subagent (Claude Code's `Agent`, a tool that runs
 * a nested agent under `runConversation` or `withHermes`): the call is a delegation, and whether
 * the subagent's own tool calls will come through this runtime's chains too.
 *
 * - `covered: true` — each of the subagent's calls is judged as the main agent's are (the same
 *   runtime, or an agent version known to send its subagents' calls to hooks). A guard can let
 *   the subagent start and judge what it does.
 * - `covered: false` — the host is known not to send them, or cannot tell (an agent version it
 *   does not know): whatever the subagent does passes no guard. A guard that must hold refuses
 *   the spawn; `reason` says why it is not covered, to pass on to the model and the user.
 *
 * Absent: the host does not know the tool starts a subagent (a guard sees an unknown tool).
 */
export interface SubagentSpawn {
  readonly covered: boolean;
  /** Why the subagent's calls are not covered (set when `covered` is false). */
  readonly reason?: string;
}

export const subagentSpawnSchema = z.object({
  covered: z.boolean(),
  reason: z.string().optional(),
});

/** A frozen copy handlers cannot change. */
export function frozenSpawn(spawn: SubagentSpawn | undefined): SubagentSpawn | undefined {
  if (spawn === undefined) return undefined;
  return Object.freeze(
    spawn.reason === undefined
      ? { covered: spawn.covered }
      : { covered: spawn.covered, reason: spawn.reason },
  );
}
