import { defineExtension } from 'hermes-extensions';
import { apiSpans } from './api-spans.js';
import { config, type OtelOptions } from './config.js';
import { llmSpans } from './llm-spans.js';
import { createInstruments } from './metrics.js';
import { OpenSpans } from './open-spans.js';
import { createPipeline, whyFailed } from './pipeline.js';
import type { EventHandlers, Recorder } from './recorder.js';
import { sessionSpans } from './session-spans.js';
import { toolSpans } from './tool-spans.js';

export type { OtelOptions } from './config.js';

const handlers: EventHandlers = { ...sessionSpans, ...llmSpans, ...apiSpans, ...toolSpans };

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
      const pipeline = createPipeline(hermes.config, options);
      const spans = new OpenSpans(pipeline.tracer);
      const recorder: Recorder = {
        spans,
        metrics: createInstruments(pipeline.meter),
        settings: hermes.config,
        flush: () => {
          pipeline
            .flush()
            .catch((error: unknown) => hermes.log.warn(`export failed: ${whyFailed(error)}`));
        },
      };
      hermes.observe('*', (p) => handlers[p.event]?.(p, recorder));

      // A host that exits (a command hook answers and is gone, a script ends) still exports what
      // it saw: spans it never saw end are ended now, and both providers flush and shut down.
      hermes.onClose(async () => {
        spans.endAll();
        for (const result of await pipeline.shutdown()) {
          if (result.status === 'rejected')
            hermes.log.warn(`export at close failed: ${whyFailed(result.reason)}`);
        }
      });
    },
  });
}

export default createOtelExtension();
