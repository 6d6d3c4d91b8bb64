import { SpanStatusCode } from '@opentelemetry/api';
import { number, shadowAttributes, text } from './attributes.js';
import { toolKey, turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';
import { toolCommand, toolTarget } from './turn-summary.js';

/** `tool.{name}`: one tool call, under the request that asked for it; and the hooks' decisions. */
export const toolSpans: EventHandlers = {
  pre_tool_call(p, { spans }) {
    const turn = turnOf(p);
    const name = String(p.tool_name);
    const target = toolTarget(p.args);
    const command = toolCommand(name, p.args);
    spans.summaryOf(turn).tool(name, target, command);
    const parent = spans.apis.get(String(p.api_request_id))?.span ?? spans.llms.get(turn);
    spans.tools.set(
      toolKey(p),
      spans.start(`tool.${name}`, parent, {
        'tool.name': name,
        'gen_ai.tool.call.id': String(p.tool_call_id ?? ''),
        'input.value': text(p.args),
        ...(target === undefined ? {} : { 'hermes.tool.target': target }),
        ...(command === undefined ? {} : { 'hermes.tool.command': command }),
      }),
    );
  },

  post_tool_call(p, { spans, metrics }) {
    const span = spans.tools.get(toolKey(p));
    spans.tools.delete(toolKey(p));
    const outcome = String(p.status);
    spans.summaryOf(turnOf(p)).outcome(outcome);
    const labels = { tool_name: String(p.tool_name), outcome };
    metrics.toolCalls.add(1, labels);
    metrics.toolDuration.record(number(p.duration_ms) ?? 0, labels);
    if (span === undefined) return;
    span.setAttributes({ 'hermes.tool.outcome': outcome, 'output.value': text(p.result) });
    // A tool that failed is a fault; a blocked or cancelled one is a decision.
    span.setStatus(
      outcome === 'error'
        ? { code: SpanStatusCode.ERROR, message: String(p.error_message ?? '') }
        : { code: SpanStatusCode.OK },
    );
    span.end();
  },

  hook_decision(p, { spans, metrics }) {
    metrics.decisions.add(1, { hook: String(p.hook), blocked: Boolean(p.blocked) });
    const span = spans.tools.get(toolKey(p)) ?? spans.turnSpan(turnOf(p));
    if (span === undefined) return;
    const shadow = shadowAttributes(p);
    span.addEvent('hermes.hook_decision', {
      'hermes.hook': String(p.hook),
      'hermes.hook.blocked': Boolean(p.blocked),
      'hermes.hook.blocked_by': String(p.blocked_by ?? ''),
      'hermes.hook.decided_by': text(p.decided_by),
      ...shadow,
    });
    if (p.blocked) span.setAttribute('hermes.hook.blocked_by', String(p.blocked_by));
    // On the span too, so a trace search finds the calls a shadowed guard would have refused.
    if (shadow['hermes.hook.would_block'] === true) span.setAttributes(shadow);
  },
};
