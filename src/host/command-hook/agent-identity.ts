import type { AgentIdentity } from '../../hooks/agent-identity.js';

type HookEvent = Record<string, unknown>;

/**
 * Inside a subagent Claude Code and Codex add `agent_id` and `agent_type` to every hook payload;
 * the main agent's events have no `agent_id` (Claude Code may still send `agent_type` there, for
 * a session started as a named agent: observers get it, handlers see no `agent`, since the call
 * is the main agent's).
 */

/** The observer fields of an event (snake_case, as the others), each only when it is a string. */
export interface AgentIds {
  agent_id?: string;
  agent_type?: string;
}

/** What is wrong with the event's agent keys: anything but a string there is a malformed event. */
export function agentProblem(event: HookEvent): string | undefined {
  for (const key of ['agent_id', 'agent_type'] as const) {
    const value = event[key];
    if (value !== undefined && typeof value !== 'string') {
      return `the hook event's ${key} must be a string, not ${describe(value)}`;
    }
  }
  return undefined;
}

/** The observer fields: what is not a string is left out (a report never fails). */
export function agentIds(event: HookEvent): AgentIds {
  return {
    ...(typeof event.agent_id === 'string' ? { agent_id: event.agent_id } : {}),
    ...(typeof event.agent_type === 'string' ? { agent_type: event.agent_type } : {}),
  };
}

/** The subagent a handler sees; undefined for the main agent. */
export function agentOf(event: HookEvent): AgentIdentity | undefined {
  if (typeof event.agent_id !== 'string') return undefined;
  return typeof event.agent_type === 'string'
    ? { id: event.agent_id, type: event.agent_type }
    : { id: event.agent_id };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
