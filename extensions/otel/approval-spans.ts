import { SpanStatusCode } from '@opentelemetry/api';
import type { ObserverPayload } from 'hermes-extensions';
import { number, text } from './attributes.js';
import { turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';

/** How much of a command or an ask's message a span keeps: a preview, not the whole text. */
const PREVIEW_CHARS = 500;

/**
 * `approval.{pattern_key}`: the wait for a person's answer to an ask, under the request that
 * asked (else the turn), naming the gated call by `gen_ai.tool.call.id`. Keyed by session and
 * call, not by turn: an answer through the AI SDK's tool approval comes in a later turn.
 */
export const approvalSpans: EventHandlers = {
  pre_approval_request(p, { spans }) {
    const patternKey = String(p.pattern_key ?? 'ask');
    const parent = spans.apis.get(String(p.api_request_id))?.span ?? spans.turnSpan(turnOf(p));
    spans.approvals.set(
      approvalKey(p),
      spans.start(`approval.${patternKey}`, parent, {
        'hermes.approval.pattern_key': patternKey,
        'hermes.approval.pattern_keys': text(p.pattern_keys ?? [patternKey]),
        'hermes.approval.surface': String(p.surface ?? ''),
        'hermes.approval.host': String(p.host ?? ''),
        ...(typeof p.command === 'string' ? { 'hermes.approval.command': preview(p.command) } : {}),
        'hermes.approval.description': preview(String(p.description ?? '')),
        'gen_ai.tool.call.id': String(p.tool_call_id ?? ''),
        'tool.name': String(p.tool_name ?? ''),
      }),
    );
  },

  post_approval_response(p, { spans, metrics }) {
    const choice = String(p.choice);
    const labels = { choice, pattern_key: String(p.pattern_key ?? 'ask') };
    const duration = number(p.duration_ms);
    metrics.approvals.add(1, labels);
    metrics.approvalDuration.record(duration ?? 0, labels);
    const span = spans.approvals.get(approvalKey(p));
    spans.approvals.delete(approvalKey(p));
    if (span === undefined) return;
    span.setAttributes({
      'hermes.approval.choice': choice,
      'hermes.approval.granted': p.granted === true,
      'hermes.approval.timed_out': p.timed_out === true,
      ...(duration === undefined ? {} : { 'hermes.approval.duration_ms': duration }),
      ...(typeof p.answered_via === 'string'
        ? { 'hermes.approval.answered_via': p.answered_via }
        : {}),
    });
    // A denial or a timeout is a legitimate decision, not an error.
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  },
};

const approvalKey = (p: ObserverPayload) => `${p.session_id}:${p.tool_call_id ?? p.tool_name}`;

function preview(value: string): string {
  return value.length > PREVIEW_CHARS ? `${value.slice(0, PREVIEW_CHARS)}…` : value;
}
