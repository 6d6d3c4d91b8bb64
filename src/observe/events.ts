/**
 * The observer events, named as the Hermes agent names them, plus `hook_decision`. The approval
 * pair follows an `ask`: `pre_approval_request` before a person is asked, `post_approval_response`
 * when the answer comes back to the framework (approval-events.ts; docs/observing.md says which
 * hosts see the answer). The subagent pair frames a delegated child agent's life
 * (subagent-events.ts): `subagent_start` when it is created, `subagent_stop` when it returns or
 * fails.
 */
export const OBSERVER_EVENTS = [
  'on_session_start',
  'on_session_end',
  'pre_llm_call',
  'post_llm_call',
  'pre_api_request',
  'post_api_request',
  'api_request_error',
  'pre_tool_call',
  'post_tool_call',
  'pre_approval_request',
  'post_approval_response',
  'subagent_start',
  'subagent_stop',
  'hook_decision',
] as const;

export type ObserverEvent = (typeof OBSERVER_EVENTS)[number];

export const TELEMETRY_SCHEMA_VERSION = 'hermes.observer.v1';

/** What every observer receives: the event's name, the schema version, the event's fields. */
export interface ObserverPayload {
  readonly event: ObserverEvent;
  readonly telemetry_schema_version: typeof TELEMETRY_SCHEMA_VERSION;
  readonly session_id?: string;
  readonly turn_id?: string;
  readonly task_id?: string;
  readonly api_request_id?: string;
  readonly api_call_count?: number;
  readonly tool_call_id?: string;
  readonly [field: string]: unknown;
}

export type ObserverHandler = (payload: ObserverPayload) => unknown;

export function isObserverEvent(name: unknown): name is ObserverEvent {
  return typeof name === 'string' && (OBSERVER_EVENTS as readonly string[]).includes(name);
}
