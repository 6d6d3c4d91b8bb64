// One load of a trusted project, in a fresh process started by bench/trusted-project.mjs:
//   node bench/trusted-project-child.mjs <home> <cwd> <n>
// imports the framework by its package name (the package's own `exports`, so dist/ as installed),
// then `loadRuntime({ cwd, home })` and `close()`, twice in the same process: the first load is
// the process's (cold or warm disk cache, as the driver arranged), the second shows what a
// process that loads the project again pays. Only the public API is used. The clock starts just
// before the framework is imported; nothing else is imported before it but Node's built-ins.
// Writes the times (ms) to stdout as one JSON line.

const [home, cwd, n] = process.argv.slice(2);
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const write = (path) => ({ toolName: 'write', toolArgs: { path, content: 'x' } });

const bootMs = performance.now(); // since the process started (performance.timeOrigin)
const t0 = performance.now();
const { loadRuntime } = await import('hermes-extensions');
const t1 = performance.now();
const first = await loadRuntime({ cwd, home, logger: silentLogger });
const t2 = performance.now();
const firstEnabled = first.extensions.filter((e) => e.status === 'enabled').length;
const t3 = performance.now();
await first.close();
const t4 = performance.now();
const second = await loadRuntime({ cwd, home, logger: silentLogger });
const t5 = performance.now();

// Checked after the clock stops: every project extension loaded, set up, and guarding.
const enabled = second.extensions.filter((e) => e.status === 'enabled' && e.hooks.length > 0);
const [passed, ...blocked] = await second.runTurn({ sessionId: 'trusted-project' }, (turn) => [
  turn.interceptToolCall(write('src/app.ts')),
  turn.interceptToolCall(write('protected-07/notes.md')), // ts-guard-07's
  turn.interceptToolCall(write('protected-17/notes.md')), // mjs-guard-17's
]);
if (
  firstEnabled !== Number(n) ||
  enabled.length !== Number(n) ||
  passed.trace.length !== Number(n) ||
  blocked[0].blockedBy !== 'ts-guard-07' ||
  blocked[1].blockedBy !== 'mjs-guard-17'
) {
  const problems = [...second.diagnostics, ...second.extensions.filter((e) => e.reason)];
  throw new Error(
    `loaded ${firstEnabled}, then ${enabled.length} of ${n}: ${JSON.stringify(problems, null, 2)}`,
  );
}
await second.close();

process.stdout.write(
  `${JSON.stringify({
    bootMs,
    frameworkMs: t1 - t0,
    loadMs: t2 - t1,
    closeMs: t4 - t3,
    secondLoadMs: t5 - t4,
    totalMs: t4 - t0,
  })}\n`,
);
