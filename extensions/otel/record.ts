import type { HermesApi } from 'hermes-extensions';
import { apiSpans } from './api-spans.js';
import { approvalSpans } from './approval-spans.js';
import type { OtelOptions, OtelSettings } from './config.js';
import { llmSpans } from './llm-spans.js';
import { createInstruments } from './metrics.js';
import { OpenSpans } from './open-spans.js';
import { createPipeline, whyFailed } from './pipeline.js';
import type { EventHandlers, Recorder } from './recorder.js';
import { sessionSpans } from './session-spans.js';
import { subagentSpans } from './subagent-spans.js';
import { toolSpans } from './tool-spans.js';

const handlers: EventHandlers = {
  ...sessionSpans,
  ...llmSpans,
  ...apiSpans,
  ...toolSpans,
  ...approvalSpans,
  ...subagentSpans,
};

/**
 * The extension's setup: the OpenTelemetry pipeline, every observer event recorded on it, and
 * what is held exported when the runtime closes. The only module of the extension that the
 * entry (index.ts) imports once OpenTelemetry is known to be installed.
 */
export function startRecording(hermes: HermesApi<OtelSettings>, options: OtelOptions): void {
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
}
