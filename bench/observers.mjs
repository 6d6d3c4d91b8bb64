// Observer cost: one reference-loop turn (two model requests, two tool calls, one blocked) with
// no observer, with one synchronous observer of every event, and with the OTel extension (spans
// into the SDK's in-memory exporter, so no network is measured). Run by bench/run.mjs; medians
// (ns) go to stdout as one JSON line.

import { MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createJiti } from 'jiti';
import { bench, do_not_optimize as doNotOptimize, run } from 'mitata';
import { block, createRuntime, defineExtension, runConversation } from '../dist/index.js';

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const guard = defineExtension({
  name: 'guard',
  setup(hermes) {
    hermes.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });
  },
});
let seen = 0;
const recorder = defineExtension({
  name: 'recorder',
  setup(hermes) {
    hermes.observe('*', (payload) => {
      seen += payload.event.length;
    });
  },
});

const steps = [
  {
    content: 'working',
    toolCalls: [
      { id: 'r1', name: 'read', arguments: { path: 'src/a.ts' } },
      { id: 'w1', name: 'write', arguments: { path: 'src/b.ts', content: 'x' } },
    ],
  },
  { content: 'done' },
];
const model = () => {
  let i = 0;
  return { name: 'bench-model', complete: async () => steps[i++ % steps.length] };
};
const tools = { read: { execute: () => 'contents' }, write: { execute: () => 'written' } };

// The extension is TypeScript importing 'hermes-extensions': load it as the runtime would.
const jiti = createJiti(import.meta.url, {
  virtualModules: {
    'hermes-extensions': await import('../dist/index.js'),
    zod: await import('zod'),
  },
});
const { createOtelExtension } = await jiti.import('../extensions/otel/index.ts');
class NullReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}
const spans = new InMemorySpanExporter();
const otel = createOtelExtension({ spanExporter: spans, metricReader: new NullReader() });

const runtimes = {
  'no observers': await createRuntime({ extensions: [guard], logger: silentLogger }),
  'one sync observer of every event': await createRuntime({
    extensions: [guard, recorder],
    logger: silentLogger,
  }),
  'the OTel extension (in-memory exporter)': await createRuntime({
    extensions: [guard, otel],
    logger: silentLogger,
  }),
};
let turn = 0;
for (const [name, runtime] of Object.entries(runtimes)) {
  bench(name, async () => {
    spans.reset();
    doNotOptimize(
      await runConversation({
        runtime,
        sessionId: `s${turn++ % 64}`,
        userMessage: 'go',
        systemPrompt: 'sys',
        model: model(),
        tools,
      }),
    );
  });
}
const result = await run({ format: 'quiet', throw: true });
const medians = {};
for (const trial of result.benchmarks) {
  medians[trial.alias] = trial.runs[0].stats.p50;
}
process.stdout.write(`${JSON.stringify({ medians, seen: seen > 0 })}\n`);
