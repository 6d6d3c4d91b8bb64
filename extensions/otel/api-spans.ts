import { SpanStatusCode } from '@opentelemetry/api';
import {
  errorAttributes,
  errorOf,
  invocationParameters,
  number,
  retryableLabel,
  statusClass,
  tokenAttributes,
  tokensOf,
} from './attributes.js';
import { modelOf, providerOf, turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';

/** `api.{model}`: one provider request, closed OK by its answer or ERROR by its failure. */
export const apiSpans: EventHandlers = {
  pre_api_request(p, { spans }) {
    const turn = turnOf(p);
    const model = modelOf(p);
    spans.summaryOf(turn).apiCalls++;
    spans.apis.set(String(p.api_request_id), {
      span: spans.start(`api.${model}`, spans.agentSpan(p), {
        'llm.model_name': model,
        ...providerOf(p),
        'llm.invocation_parameters': invocationParameters(p),
        ...(number(p.max_tokens) === undefined
          ? {}
          : { 'gen_ai.request.max_tokens': Number(p.max_tokens) }),
        'hermes.api_request_id': String(p.api_request_id),
        'hermes.api_call_count': number(p.api_call_count) ?? 0,
      }),
      turn,
      open: true,
    });
  },

  post_api_request(p, { spans, metrics }) {
    const request = spans.apis.get(String(p.api_request_id));
    if (request === undefined || !request.open) return;
    request.open = false;
    const model = modelOf(p);
    const duration = number(p.api_duration) ?? 0;
    metrics.apiDuration.record(duration, { model, status: 'ok' });
    const tokens = tokensOf(p.usage);
    if (tokens.input !== undefined) metrics.inputTokens.add(tokens.input, { model });
    if (tokens.output !== undefined) metrics.outputTokens.add(tokens.output, { model });
    request.span.setAttributes({
      ...tokenAttributes(tokens),
      'http.duration_ms': duration,
      'gen_ai.response.finish_reason': String(p.finish_reason),
      ...(typeof p.response_model === 'string'
        ? { 'gen_ai.response.model': p.response_model }
        : {}),
    });
    request.span.setStatus({ code: SpanStatusCode.OK });
    request.span.end();
  },

  api_request_error(p, { spans, metrics }) {
    const turn = turnOf(p);
    const model = modelOf(p);
    const request = spans.apis.get(String(p.api_request_id));
    // No request in flight (the error came before pre_api_request, or its span was closed): a
    // short span of its own, so the failure is still seen.
    const span =
      request?.open === true
        ? request.span
        : spans.start('api.error', spans.turnSpan(turn), {
            'llm.model_name': model,
            ...providerOf(p),
            ...(p.api_request_id === undefined
              ? {}
              : { 'hermes.api_request_id': String(p.api_request_id) }),
          });
    if (request) request.open = false;
    const error = errorOf(p);
    const duration = number(p.api_duration) ?? 0;
    metrics.apiDuration.record(duration, { model, status: 'error' });
    span.setAttributes({ ...errorAttributes(p), 'http.duration_ms': duration });
    span.addEvent('exception', {
      'exception.type': error.type,
      'exception.message': error.message,
      'exception.escaped': true,
    });
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end();
    metrics.apiErrors.add(1, {
      error_type: error.type,
      status_class: statusClass(p.status_code),
      retryable: retryableLabel(p.retryable),
    });
    if (p.retryable === true) metrics.retries.add(1, { model });
    spans.summaryOf(turn).errorType = error.type;
  },
};
