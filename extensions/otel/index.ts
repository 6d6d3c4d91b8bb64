import { context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  type MetricReader,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { defineExtension, type ObserverPayload } from 'hermes-extensions';
import { z } from 'zod';
import {
  errorAttributes,
  errorOf,
  invocationParameters,
  number,
  retryableLabel,
  statusClass,
  text,
  tokenAttributes,
  tokensOf,
} from './attributes.js';
import { finalStatus, TurnSummary, toolCommand, toolTarget } from './turn-summary.js';

const config = z.object({
  /** The OTLP/HTTP collector: traces go to `${endpoint}/v1/traces`, metrics to `/v1/metrics`. */
  endpoint: z.string().url().default('http://localhost:4318'),
  headers: z.record(z.string(), z.string()).default({}),
  service_name: z.string().default('hermes-agent'),
  /** How often metrics are exported (ms). */
  metrics_interval_ms: z.number().int().positive().default(30_000),
  /**
   * The `llm.*` span's input is the whole conversation the model is about to see (JSON), not only
   * the user's message: larger spans, and everything said in them.
   */
  capture_conversation_history: z.boolean().default(false),
});

export interface OtelOptions {
  /** Spans go here instead of OTLP/HTTP (tests, or an exporter of your own). Exported at once. */
  spanExporter?: SpanExporter;
  /** Metrics are read by this instead of an OTLP/HTTP exporter on a timer. */
  metricReader?: MetricReader;
}

/**
 * OpenTelemetry for the agent, from the observer events, with the span tree, names and
 * attributes of the Hermes OTel mapping (README, The demo, and the extensions shipped):
 * `session.{kind}` (one `runConversation`; the kind is the platform) → `llm.{model}` (the turn)
 * → `api.{model}` (each provider request) → `tool.{name}` (each tool call, under the request that
 * asked for it). Token usage (both conventions), finish reason, API errors, tool outcome and hook
 * decisions become attributes and span events; the session span ends with the turn summary.
 * Status ERROR marks API failures and tools that failed — a blocked or cancelled tool is a
 * decision, not a fault. Counters and histograms count tool calls, tokens, API errors, retries,
 * sessions and durations.
 */
export function createOtelExtension(options: OtelOptions = {}) {
  return defineExtension({
    name: 'otel',
    version: '1.0.0',
    description:
      'OpenTelemetry traces and metrics of every turn, request and tool call (OTLP/HTTP)',
    configSchema: config,
    setup(hermes) {
      const settings = hermes.config;
      const resource = resourceFromAttributes({ 'service.name': settings.service_name });
      const spanExporter =
        options.spanExporter ??
        new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces`, headers: settings.headers });
      const tracerProvider = new BasicTracerProvider({
        resource,
        spanProcessors: [
          options.spanExporter
            ? new SimpleSpanProcessor(spanExporter)
            : new BatchSpanProcessor(spanExporter),
        ],
      });
      const tracer = tracerProvider.getTracer('hermes-extensions');
      const reader =
        options.metricReader ??
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({
            url: `${settings.endpoint}/v1/metrics`,
            headers: settings.headers,
          }),
          exportIntervalMillis: settings.metrics_interval_ms,
        });
      const meterProvider = new MeterProvider({ resource, readers: [reader] });
      const meter = meterProvider.getMeter('hermes-extensions');
      const toolCalls = meter.createCounter('hermes.tool.calls', {
        description: 'Tool calls by outcome',
      });
      const toolDuration = meter.createHistogram('hermes.tool.duration', { unit: 'ms' });
      const apiDuration = meter.createHistogram('hermes.api.duration', { unit: 'ms' });
      const inputTokens = meter.createCounter('hermes.tokens.input');
      const outputTokens = meter.createCounter('hermes.tokens.output');
      const decisions = meter.createCounter('hermes.hook.decisions');
      const apiErrors = meter.createCounter('hermes.api.error.count', {
        description: 'Failed provider requests',
      });
      const retries = meter.createCounter('hermes.retry.count', {
        description: 'Provider requests that failed and may be tried again',
      });
      const sessionCount = meter.createCounter('hermes.sessions', {
        description: 'Turns by kind and final status',
      });

      const sessions = new Map<string, Span>();
      const llms = new Map<string, Span>();
      /** Provider requests by id; an ended one stays the parent of the tool calls it asked for. */
      const apis = new Map<string, { span: Span; turn: string; open: boolean }>();
      const tools = new Map<string, Span>();
      const summaries = new Map<string, TurnSummary>();
      const summaryOf = (turn: string) => {
        let summary = summaries.get(turn);
        if (summary === undefined) {
          summary = new TurnSummary();
          summaries.set(turn, summary);
        }
        return summary;
      };
      const child = (
        name: string,
        parent: Span | undefined,
        attributes: Record<string, string | number | boolean>,
      ) =>
        tracer.startSpan(
          name,
          { attributes },
          parent ? trace.setSpan(context.active(), parent) : undefined,
        );
      const toolKey = (p: ObserverPayload) => `${p.turn_id}:${p.tool_call_id ?? p.tool_name}`;
      const provider = (p: ObserverPayload): Record<string, string> =>
        typeof p.provider === 'string' ? { 'llm.provider': p.provider } : {};

      hermes.observe('*', (p) => {
        const turn = String(p.turn_id);
        const model = String(p.model ?? 'model');
        switch (p.event) {
          case 'on_session_start': {
            const kind = String(p.platform ?? 'agent');
            sessions.set(
              turn,
              child(`session.${kind}`, undefined, {
                'hermes.session.kind': kind,
                'hermes.session.id': String(p.session_id),
                'session.id': String(p.session_id),
                'hermes.turn.id': turn,
              }),
            );
            return;
          }
          case 'pre_llm_call': {
            const attributes: Record<string, string | number | boolean> = {
              'llm.model_name': model,
              'gen_ai.request.model': model,
              ...provider(p),
              'input.value': text(p.user_message),
            };
            if (settings.capture_conversation_history) {
              // What the model is about to see: the earlier messages, then this one.
              const history = Array.isArray(p.conversation_history) ? p.conversation_history : [];
              const conversation = [...history, { role: 'user', content: p.user_message }];
              attributes['input.value'] = JSON.stringify(conversation);
              attributes['input.mime_type'] = 'application/json';
              attributes['hermes.conversation.message_count'] = conversation.length;
            }
            if (typeof p.sender_id === 'string') {
              attributes['user.id'] = p.sender_id;
              sessions.get(turn)?.setAttribute('user.id', p.sender_id);
            }
            llms.set(turn, child(`llm.${model}`, sessions.get(turn), attributes));
            return;
          }
          case 'pre_api_request':
            summaryOf(turn).apiCalls++;
            apis.set(String(p.api_request_id), {
              span: child(`api.${model}`, llms.get(turn) ?? sessions.get(turn), {
                'llm.model_name': model,
                ...provider(p),
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
            return;
          case 'post_api_request': {
            const request = apis.get(String(p.api_request_id));
            if (request === undefined || !request.open) return;
            request.open = false;
            const span = request.span;
            const duration = number(p.api_duration) ?? 0;
            apiDuration.record(duration, { model, status: 'ok' });
            const tokens = tokensOf(p.usage);
            if (tokens.input !== undefined) inputTokens.add(tokens.input, { model });
            if (tokens.output !== undefined) outputTokens.add(tokens.output, { model });
            span.setAttributes({
              ...tokenAttributes(tokens),
              'http.duration_ms': duration,
              'gen_ai.response.finish_reason': String(p.finish_reason),
              ...(typeof p.response_model === 'string'
                ? { 'gen_ai.response.model': p.response_model }
                : {}),
            });
            span.setStatus({ code: SpanStatusCode.OK });
            span.end();
            return;
          }
          case 'api_request_error': {
            const request = apis.get(String(p.api_request_id));
            // No request in flight (the error came before pre_api_request, or its span was
            // closed): a short span of its own, so the failure is still seen.
            const span =
              request?.open === true
                ? request.span
                : child('api.error', llms.get(turn) ?? sessions.get(turn), {
                    'llm.model_name': model,
                    ...provider(p),
                    ...(p.api_request_id === undefined
                      ? {}
                      : { 'hermes.api_request_id': String(p.api_request_id) }),
                  });
            if (request) request.open = false;
            const error = errorOf(p);
            const duration = number(p.api_duration) ?? 0;
            apiDuration.record(duration, { model, status: 'error' });
            span.setAttributes({ ...errorAttributes(p), 'http.duration_ms': duration });
            span.addEvent('exception', {
              'exception.type': error.type,
              'exception.message': error.message,
              'exception.escaped': true,
            });
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
            span.end();
            apiErrors.add(1, {
              error_type: error.type,
              status_class: statusClass(p.status_code),
              retryable: retryableLabel(p.retryable),
            });
            if (p.retryable === true) retries.add(1, { model });
            summaryOf(turn).errorType = error.type;
            return;
          }
          case 'pre_tool_call': {
            const name = String(p.tool_name);
            const target = toolTarget(p.args);
            const command = toolCommand(name, p.args);
            summaryOf(turn).tool(name, target, command);
            tools.set(
              toolKey(p),
              child(`tool.${name}`, apis.get(String(p.api_request_id))?.span ?? llms.get(turn), {
                'tool.name': name,
                'gen_ai.tool.call.id': String(p.tool_call_id ?? ''),
                'input.value': text(p.args),
                ...(target === undefined ? {} : { 'hermes.tool.target': target }),
                ...(command === undefined ? {} : { 'hermes.tool.command': command }),
              }),
            );
            return;
          }
          case 'post_tool_call': {
            const span = tools.get(toolKey(p));
            tools.delete(toolKey(p));
            const outcome = String(p.status);
            summaryOf(turn).outcome(outcome);
            toolCalls.add(1, { tool_name: String(p.tool_name), outcome });
            toolDuration.record(number(p.duration_ms) ?? 0, {
              tool_name: String(p.tool_name),
              outcome,
            });
            if (span === undefined) return;
            span.setAttributes({ 'hermes.tool.outcome': outcome, 'output.value': text(p.result) });
            // A tool that failed is a fault; a blocked or cancelled one is a decision.
            span.setStatus(
              outcome === 'error'
                ? { code: SpanStatusCode.ERROR, message: String(p.error_message ?? '') }
                : { code: SpanStatusCode.OK },
            );
            span.end();
            return;
          }
          case 'hook_decision': {
            decisions.add(1, { hook: String(p.hook), blocked: Boolean(p.blocked) });
            const span = tools.get(toolKey(p)) ?? llms.get(turn) ?? sessions.get(turn);
            span?.addEvent('hermes.hook_decision', {
              'hermes.hook': String(p.hook),
              'hermes.hook.blocked': Boolean(p.blocked),
              'hermes.hook.blocked_by': String(p.blocked_by ?? ''),
              'hermes.hook.decided_by': text(p.decided_by),
            });
            if (p.blocked && span)
              span.setAttribute('hermes.hook.blocked_by', String(p.blocked_by));
            return;
          }
          case 'post_llm_call': {
            const span = llms.get(turn);
            llms.delete(turn);
            span?.setAttribute('output.value', text(p.assistant_response));
            span?.end();
            return;
          }
          case 'on_session_end': {
            // A turn that ended early (blocked, cancelled, failed) still closes its spans.
            for (const [key, span] of tools) {
              if (!key.startsWith(`${turn}:`)) continue;
              span.end();
              tools.delete(key);
            }
            for (const [id, request] of apis) {
              if (request.turn !== turn) continue;
              if (request.open) request.span.end();
              apis.delete(id);
            }
            const status = finalStatus(p.completed, p.interrupted);
            const summary = summaryOf(turn).attributes(status);
            summaries.delete(turn);
            sessionCount.add(1, { kind: String(p.platform ?? 'agent'), final_status: status });
            const session = sessions.get(turn);
            sessions.delete(turn);
            const llm = llms.get(turn);
            llms.delete(turn);
            // Without a session span (its start was not seen), the turn's llm span is the root.
            const root = session ?? llm;
            root?.setAttributes({
              ...summary,
              'hermes.turn.completed': Boolean(p.completed),
              'hermes.turn.end_reason': String(p.reason),
            });
            llm?.end();
            session?.end();
            tracerProvider
              .forceFlush()
              .catch((error: unknown) =>
                hermes.log.warn(`export failed: ${(error as Error).message}`),
              );
            return;
          }
          default:
            return;
        }
      });

      // A host that exits (a command hook answers and is gone, a script ends) still exports what
      // it saw: spans it never saw end are ended now, and both providers flush and shut down.
      hermes.onClose(async () => {
        for (const span of tools.values()) span.end();
        for (const request of apis.values()) if (request.open) request.span.end();
        for (const span of llms.values()) span.end();
        for (const span of sessions.values()) span.end();
        tools.clear();
        summaries.clear();
        apis.clear();
        llms.clear();
        sessions.clear();
        const results = await Promise.allSettled([
          tracerProvider.shutdown(),
          meterProvider.shutdown(),
        ]);
        for (const result of results) {
          if (result.status === 'rejected')
            hermes.log.warn(`export at close failed: ${(result.reason as Error)?.message}`);
        }
      });
    },
  });
}

export default createOtelExtension();
