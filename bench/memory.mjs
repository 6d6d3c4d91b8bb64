// Memory benchmark: one million turns over a thousand sessions, each turn writing its state and
// running one tool-call chain, with the heap sampled after a full GC every 100,000 turns. Needs
// `node --expose-gc`; run by bench/run.mjs, which prints the table. The samples go to stdout as
// one JSON line.
import { createRuntime, defineExtension, getTurnState, pass } from '../dist/index.js';

if (typeof globalThis.gc !== 'function') {
  throw new Error('bench/memory.mjs needs `node --expose-gc`');
}

const TURNS = Number(process.env.BENCH_MEMORY_TURNS ?? 1_000_000);
const EVERY = TURNS / 10;
const SESSIONS = 1000;

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const guard = defineExtension({
  name: 'memory-guard',
  setup(hermes) {
    // Reads the state this turn wrote and adds to it, as a stateful guard would.
    hermes.on('intercept_tool_call', (event) => {
      event.state.seen = (event.state.x?.length ?? 0) + 1;
      return event.toolArgs.path === 'never' ? pass({ never: true }) : undefined;
    });
    hermes.on('intercept_tool_call', () => undefined, { priority: 200 });
  },
});
const runtime = await createRuntime({ extensions: [guard], logger: silentLogger });

const settle = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const samples = [];
let blocked = 0;
const started = performance.now();
for (let i = 1; i <= TURNS; i++) {
  await runtime.runTurn({ sessionId: `s${i % SESSIONS}` }, (turn) => {
    turn.state.x = new Array(10).fill(i);
    const outcome = turn.interceptToolCall({
      toolName: 'write',
      toolArgs: { path: `src/${i % 100}.ts`, content: 'x' },
    });
    if (outcome.blocked) blocked++;
  });
  if (i % EVERY === 0) samples.push({ turns: i, heapUsed: settle() });
}
const seconds = (performance.now() - started) / 1000;

let leftOpen = 0;
for (let s = 0; s < SESSIONS; s++) if (getTurnState(`s${s}`) !== undefined) leftOpen++;
if (blocked !== 0 || leftOpen !== 0) {
  throw new Error(`unexpected: ${blocked} blocked outcomes, ${leftOpen} turn states left open`);
}

process.stdout.write(`${JSON.stringify({ turns: TURNS, seconds, samples })}\n`);
