import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { OtelOptions, OtelSettings } from './config.js';

/**
 * Where spans and metrics go: OTLP/HTTP to the configured endpoint (spans batched, metrics on a
 * timer), or the exporter and reader given in the options (spans exported at once).
 */
export function createPipeline(settings: OtelSettings, options: OtelOptions) {
  const resource = resourceFromAttributes({ 'service.name': settings.service_name });
  const spanProcessor = options.spanExporter
    ? new SimpleSpanProcessor(options.spanExporter)
    : new BatchSpanProcessor(
        new OTLPTraceExporter({
          url: `${settings.endpoint}/v1/traces`,
          headers: settings.headers,
        }),
      );
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
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
  return {
    tracer: tracerProvider.getTracer('hermes-extensions'),
    meter: meterProvider.getMeter('hermes-extensions'),
    /** Sends the spans ended so far (at the end of each turn). */
    flush: () => tracerProvider.forceFlush(),
    /** Sends everything held and stops both providers; each result settles on its own. */
    shutdown: () => Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]),
  };
}

/**
 * Why an export failed, in words, whatever the SDK or an exporter rejected with: the tracer
 * provider's flush rejects with a list of reasons, an exporter with anything (null, a proxy whose
 * every read throws). Never throws: it runs in a rejection handler, where a throw would escape
 * the host.
 */
export function whyFailed(reason: unknown): string {
  try {
    const reasons = Array.isArray(reason) ? reason : [reason];
    return reasons.map(oneReason).join('; ') || 'no reason given';
  } catch {
    return 'a reason that cannot be read';
  }
}

function oneReason(reason: unknown): string {
  try {
    return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  } catch {
    return 'a reason that cannot be read';
  }
}
