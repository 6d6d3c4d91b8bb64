// Observer cost: one reference-loop turn (two model requests, two tool calls, one blocked) with
// no observer, and with one synchronous observer of every event. Run by bench/run.mjs; medians
// (ns) go to stdout as one JSON line.
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

const runtimes = {
  'no observers': await createRuntime({ extensions: [guard], logger: silentLogger }),
  'one sync observer of every event': await createRuntime({
    extensions: [guard, recorder],
    logger: silentLogger,
  }),
};
let turn = 0;
for (const [name, runtime] of Object.entries(runtimes)) {
  bench(name, async () => {
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
