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

const config = z.object({
  /** The OTLP/HTTP collector: traces go to `${endpoint}/v1/traces`, metrics to `/v1/metrics`. */
  endpoint: z.string().url().default('http://localhost:4318'),
  headers: z.record(z.string(), z.string()).default({}),
  service_name: z.string().default('hermes-agent'),
  /** How often metrics are exported (ms). */
  metrics_interval_ms: z.number().int().positive().default(30_000),
});

export interface OtelOptions {
  /** Spans go here instead of OTLP/HTTP (tests, or an exporter of your own). Exported at once. */
  spanExporter?: SpanExporter;
  /** Metrics are read by this instead of an OTLP/HTTP exporter on a timer. */
  metricReader?: MetricReader;
}

const text = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);
const number = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * OpenTelemetry for the agent, from the observer events, with the span tree of the Hermes OTel
 * mapping: `session.{platform}` (one `runConversation`) → `llm.{model}` (the turn) →
 * `api.{model}` (each provider request) → `tool.{name}` (each tool call, under the request that
 * asked for it). Token usage, finish reason, tool outcome and hook decisions become attributes
 * and span events; only API failures set status ERROR — a blocked tool is a decision. Counters
 * and histograms count tool calls, tokens and durations.
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

      const sessions = new Map<string, Span>();
      const llms = new Map<string, Span>();
      /** Provider requests by id; an ended one stays the parent of the tool calls it asked for. */
      const apis = new Map<string, { span: Span; turn: string; open: boolean }>();
      const tools = new Map<string, Span>();
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

      hermes.observe('*', (p) => {
        const turn = String(p.turn_id);
        const model = String(p.model ?? 'model');
        switch (p.event) {
          case 'on_session_start':
            sessions.set(
              turn,
              child(`session.${String(p.platform ?? 'agent')}`, undefined, {
                'hermes.session.id': String(p.session_id),
                'session.id': String(p.session_id),
                'hermes.turn.id': turn,
              }),
            );
            return;
          case 'pre_llm_call':
            llms.set(
              turn,
              child(`llm.${model}`, sessions.get(turn), {
                'llm.model_name': model,
                'gen_ai.request.model': model,
                'input.value': text(p.user_message),
              }),
            );
            return;
          case 'pre_api_request':
            apis.set(String(p.api_request_id), {
              span: child(`api.${model}`, llms.get(turn) ?? sessions.get(turn), {
                'llm.model_name': model,
                'hermes.api_request_id': String(p.api_request_id),
                'hermes.api_call_count': number(p.api_call_count) ?? 0,
              }),
              turn,
              open: true,
            });
            return;
          case 'post_api_request':
          case 'api_request_error': {
            const request = apis.get(String(p.api_request_id));
            if (request === undefined || !request.open) return;
            request.open = false;
            const span = request.span;
            const duration = number(p.api_duration) ?? 0;
            apiDuration.record(duration, {
              model,
              status: p.event === 'post_api_request' ? 'ok' : 'error',
            });
            span.setAttribute('http.duration_ms', duration);
            if (p.event === 'post_api_request') {
              const usage = (p.usage ?? {}) as Record<string, unknown>;
              const input = number(usage.input_tokens ?? usage.prompt_tokens ?? usage.inputTokens);
              const output = number(
                usage.output_tokens ?? usage.completion_tokens ?? usage.outputTokens,
              );
              if (input !== undefined) {
                span.setAttribute('gen_ai.usage.input_tokens', input);
                inputTokens.add(input, { model });
              }
              if (output !== undefined) {
                span.setAttribute('gen_ai.usage.output_tokens', output);
                outputTokens.add(output, { model });
              }
              span.setAttribute('gen_ai.response.finish_reason', String(p.finish_reason));
              span.setStatus({ code: SpanStatusCode.OK });
            } else {
              const error = (p.error ?? {}) as { type?: string; message?: string };
              span.setAttribute('error.type', String(error.type ?? 'Error'));
              span.recordException({
                name: String(error.type ?? 'Error'),
                message: String(error.message ?? ''),
              });
              span.setStatus({ code: SpanStatusCode.ERROR, message: String(error.message ?? '') });
            }
            span.end();
            return;
          }
          case 'pre_tool_call':
            tools.set(
              toolKey(p),
              child(
                `tool.${String(p.tool_name)}`,
                apis.get(String(p.api_request_id))?.span ?? llms.get(turn),
                {
                  'tool.name': String(p.tool_name),
                  'gen_ai.tool.call.id': String(p.tool_call_id ?? ''),
                  'input.value': text(p.args),
                },
              ),
            );
            return;
          case 'post_tool_call': {
            const span = tools.get(toolKey(p));
            tools.delete(toolKey(p));
            const outcome = String(p.status);
            toolCalls.add(1, { tool_name: String(p.tool_name), outcome });
            toolDuration.record(number(p.duration_ms) ?? 0, {
              tool_name: String(p.tool_name),
              outcome,
            });
            if (span === undefined) return;
            span.setAttributes({ 'hermes.tool.outcome': outcome, 'output.value': text(p.result) });
            // A blocked, failed or cancelled tool is an outcome of the agent's work, not a fault.
            span.setStatus({ code: SpanStatusCode.OK });
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
            llms.get(turn)?.end();
            llms.delete(turn);
            const span = sessions.get(turn);
            sessions.delete(turn);
            span?.setAttributes({
              'hermes.turn.completed': Boolean(p.completed),
              'hermes.turn.final_status': String(p.reason),
            });
            span?.end();
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
