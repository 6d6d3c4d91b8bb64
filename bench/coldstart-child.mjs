// One cold start, in a fresh process started by bench/coldstart.mjs:
//   node bench/coldstart-child.mjs runtime <home> <cwd> <n>   loadRuntime({ cwd, home })
//   node bench/coldstart-child.mjs native <dir> <n>           import() of <dir>/ext-*/index.mjs
//   node bench/coldstart-child.mjs empty                      nothing (a bare node process)
// The clock starts just before the framework is imported; nothing else is imported before it
// but Node's built-ins. Writes the times (ms) to stdout as one JSON line.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode, ...args] = process.argv.slice(2);
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const write = (path) => ({ toolName: 'write', toolArgs: { path, content: 'x' } });

const bootMs = performance.now(); // since the process started (performance.timeOrigin)
let frameworkMs = 0;
let loadMs = 0;
let loaded = 0;

if (mode === 'runtime') {
  const [home, cwd, n] = args;
  const t0 = performance.now();
  const { loadRuntime } = await import('../dist/index.js');
  const t1 = performance.now();
  const runtime = await loadRuntime({ cwd, home, logger: silentLogger });
  const t2 = performance.now();
  [frameworkMs, loadMs] = [t1 - t0, t2 - t1];

  // Checked after the clock stops: every extension loaded, set up, and guarding.
  const enabled = runtime.extensions.filter((e) => e.status === 'enabled' && e.hooks.length);
  loaded = enabled.length;
  const [passed, blocked] = await runtime.runTurn({ sessionId: 'coldstart' }, (turn) => [
    turn.interceptToolCall(write('src/app.ts')),
    turn.interceptToolCall(write('secrets/token')),
  ]);
  if (loaded !== Number(n) || passed.trace.length !== loaded || !blocked.blocked) {
    const problems = [...runtime.diagnostics, ...runtime.extensions.filter((e) => e.reason)];
    throw new Error(`loaded ${loaded} of ${n}: ${JSON.stringify(problems, null, 2)}`);
  }
} else if (mode === 'native') {
  const [dir, n] = args;
  const urls = readdirSync(dir)
    .filter((name) => name.startsWith('ext-'))
    .sort()
    .map((name) => pathToFileURL(join(dir, name, 'index.mjs')).href);
  const t0 = performance.now();
  await import('../dist/index.js');
  const t1 = performance.now();
  const modules = [];
  for (const url of urls) modules.push(await import(url));
  const t2 = performance.now();
  [frameworkMs, loadMs] = [t1 - t0, t2 - t1];

  loaded = modules.filter((m) => typeof m.default?.setup === 'function').length;
  if (loaded !== Number(n)) throw new Error(`imported ${loaded} of ${n} extensions`);
} else if (mode !== 'empty') {
  throw new Error(`unknown mode ${mode}`);
}

process.stdout.write(
  `${JSON.stringify({ bootMs, frameworkMs, loadMs, totalMs: frameworkMs + loadMs, loaded })}\n`,
);
