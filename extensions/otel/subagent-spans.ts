import { SpanStatusCode } from '@opentelemetry/api';
import type { ObserverPayload } from 'hermes-extensions';
import { number } from './attributes.js';
import { turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';

/** How much of a goal or a summary a span keeps: a preview, not the whole text. */
const PREVIEW_CHARS = 500;
/** The statuses the mapping marks ERROR; any other (or none) is OK, so it never inflates error rates. */
const FAILURE_LIKE = new Set(['error', 'failed', 'cancelled', 'timeout']);

/**
 * `subagent.{role}`: a delegation, from `subagent_start` to `subagent_stop`, under the request
 * whose tool call started it (else the agent that started it, else the turn). The subagent's own
 * requests go under it (api-spans.ts), so the whole multi-agent run is one trace.
 */
export const subagentSpans: EventHandlers = {
  subagent_start(p, { spans }) {
    const role = roleOf(p);
    const goal = typeof p.child_goal === 'string' ? preview(p.child_goal) : undefined;
    const parent =
      spans.apis.get(String(p.api_request_id))?.span ??
      (typeof p.agent_id === 'string'
        ? spans.subagents.get(subagentKey(p, p.agent_id))
        : undefined) ??
      spans.turnSpan(turnOf(p));
    spans.subagents.set(
      subagentKey(p, String(p.child_subagent_id)),
      spans.start(`subagent.${role}`, parent, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': role,
        'hermes.subagent.role': role,
        'hermes.subagent.child_id': String(p.child_subagent_id),
        // In-process, a subagent runs in its parent's session and turn.
        'hermes.subagent.child_session_id': String(p.session_id),
        'hermes.subagent.parent_session_id': String(p.session_id),
        'hermes.subagent.parent_turn_id': String(p.parent_turn_id ?? p.turn_id),
        ...(typeof p.parent_subagent_id === 'string'
          ? { 'hermes.subagent.parent_id': p.parent_subagent_id }
          : {}),
        ...(goal === undefined ? {} : { 'hermes.subagent.goal': goal, 'input.value': goal }),
      }),
    );
  },

  subagent_stop(p, { spans, metrics }) {
    const role = roleOf(p);
    const status = typeof p.status === 'string' ? p.status : 'unknown';
    const duration = number(p.duration_ms);
    metrics.subagents.add(1, { role, status });
    if (duration !== undefined) metrics.subagentDuration.record(duration, { role });
    const key = subagentKey(p, String(p.child_subagent_id));
    const span = spans.subagents.get(key);
    spans.subagents.delete(key);
    if (span === undefined) return;
    const summary = typeof p.child_summary === 'string' ? preview(p.child_summary) : undefined;
    span.setAttributes({
      'hermes.subagent.status': status,
      ...(duration === undefined ? {} : { 'hermes.subagent.duration_ms': duration }),
      ...(summary === undefined
        ? {}
        : { 'hermes.subagent.summary': summary, 'output.value': summary }),
    });
    span.setStatus(
      FAILURE_LIKE.has(status)
        ? { code: SpanStatusCode.ERROR, message: `subagent ${status}` }
        : { code: SpanStatusCode.OK },
    );
    span.end();
  },
};

/** A subagent's key: its session and id (ids are the host's, unique in a session). */
export const subagentKey = (p: ObserverPayload, id: string) => `${p.session_id}:${id}`;

const roleOf = (p: ObserverPayload) =>
  typeof p.child_role === 'string' && p.child_role !== '' ? p.child_role : 'subagent';

function preview(value: string): string {
  return value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS)}…` : value;
}
