import { z } from 'zod';

/**
 * Which agent made a call, when it was not the main one: a subagent the main agent delegated to
 * (Claude Code's and Codex's `agent_id` / `agent_type` in their hook payloads). Absent on the
 * main agent's calls, so `when: { agent: P.not(P.nullish) }` scopes a handler to subagents and
 * `when: { agent: P.nullish }` to the main agent. A subagent's calls belong to the turn it was
 * started in: same session, turn id and `state` as the main agent's.
 */
export interface AgentIdentity {
  /** The subagent's id, as the host names it; stable for the subagent's life. */
  readonly id: string;
  /** Its kind, when the host says (Claude Code's agent name, e.g. `Explore`). */
  readonly type?: string;
  /**
   * The subagent that started this one, when it was not the main agent (a nested agent of a
   * nested agent). Absent when the main agent started it, or when the host does not tell.
   */
  readonly parent?: string;
}

export const agentIdentitySchema = z.object({
  id: z.string(),
  type: z.string().optional(),
  parent: z.string().optional(),
});

/** A frozen copy handlers cannot change (or nothing, for the main agent). */
export function frozenAgent(agent: AgentIdentity | undefined): AgentIdentity | undefined {
  if (agent === undefined) return undefined;
  return Object.freeze({
    id: agent.id,
    ...(agent.type === undefined ? {} : { type: agent.type }),
    ...(agent.parent === undefined ? {} : { parent: agent.parent }),
  });
}
