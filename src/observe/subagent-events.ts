import { sanitize } from './sanitize.js';

/**
 * A subagent the turn's agent delegated to, as `subagent_start` tells it (the Hermes agent's
 * field names: `child_*` is the subagent, `parent_*` who started it). The event carries the
 * turn's ids as every other does, so `turn_id` is the turn it belongs to (`parent_turn_id` too).
 */
export interface StartedSubagent {
  /** The subagent's id, as the host names it (`child_subagent_id`). */
  id: string;
  /** Its kind, when the host says: Claude Code's agent type (`child_role`). */
  role?: string;
  /** What it was asked to do, when the host says (`child_goal`). */
  goal?: string;
  /** The subagent that started it; absent when the main agent did (`parent_subagent_id`). */
  parent?: string;
}

/**
 * How a subagent ended (`subagent_stop`'s `status`): `completed` when it returned an answer,
 * `failed` when it ended in an error, `cancelled` when it was stopped before its end.
 */
export type SubagentStatus = 'completed' | 'failed' | 'cancelled';

export interface StoppedSubagent {
  id: string;
  role?: string;
  parent?: string;
  status: SubagentStatus;
  /** Its last answer, when the host tells it (`child_summary`). */
  summary?: string;
  /** From its start, when the same process saw both ends (`duration_ms`). */
  durationMs?: number;
}

/** `subagent_start`'s own fields (the turn's ids are added by the telemetry). */
export function subagentStartFields(started: StartedSubagent): Record<string, unknown> {
  return {
    child_subagent_id: started.id,
    ...(started.role === undefined ? {} : { child_role: started.role }),
    ...(started.goal === undefined ? {} : { child_goal: sanitize(started.goal) }),
    ...(started.parent === undefined ? {} : { parent_subagent_id: started.parent }),
  };
}

/** `subagent_stop`'s own fields. */
export function subagentStopFields(stopped: StoppedSubagent): Record<string, unknown> {
  return {
    child_subagent_id: stopped.id,
    ...(stopped.role === undefined ? {} : { child_role: stopped.role }),
    ...(stopped.parent === undefined ? {} : { parent_subagent_id: stopped.parent }),
    status: stopped.status,
    ...(stopped.summary === undefined ? {} : { child_summary: sanitize(stopped.summary) }),
    ...(stopped.durationMs === undefined ? {} : { duration_ms: stopped.durationMs }),
  };
}
