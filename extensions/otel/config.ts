import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';

export const config = z.object({
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

export type OtelSettings = z.infer<typeof config>;

export interface OtelOptions {
  /** Spans go here instead of OTLP/HTTP (tests, or an exporter of your own). Exported at once. */
  spanExporter?: SpanExporter;
  /** Metrics are read by this instead of an OTLP/HTTP exporter on a timer. */
  metricReader?: MetricReader;
}
