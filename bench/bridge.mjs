// Per-call latency of intercept_tool_call with workflow-guard loaded: in process, over the stdio
// bridge (one JSON-RPC round trip per call to a long-running `hermes extensions serve --stdio`),
// and as one process per call (`hermes hook claude-code`, a command hook). Run by
// bench/run.mjs; the samples (ms) go to stdout as one JSON line.
//
// The bridge is measured twice: the first 1,000 calls after the server starts, while V8 is still
// compiling its hot code, and after BENCH_BRIDGE_WARMUP calls (5,000), once it has. It is driven
// from Node and, when python3 is on the PATH, from the shipped Python client, the host it is for.
// BENCH_BRIDGE_SERVER_FLAGS passes Node flags to the server (e.g. `--no-opt`, to see what the
// optimizing compiler costs the first calls).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.BENCH_BRIDGE_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_BRIDGE_WARMUP ?? 5000);
const FIRST = 1000;
const PROCESSES = Number(process.env.BENCH_BRIDGE_PROCESSES ?? 10);
const serverFlags = (process.env.BENCH_BRIDGE_SERVER_FLAGS ?? '').split(' ').filter(Boolean);

const work = mkdtempSync(join(tmpdir(), 'hermes-bridge-bench-'));
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(
  join(home, 'config.yaml'),
  `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions', 'workflow-guard'))}]\n`,
);
process.env.HERMES_HOME = home;
const serverCommand = [
  process.execPath,
  ...serverFlags,
  join(root, 'bin', 'hermes.js'),
  'extensions',
  'serve',
  '--stdio',
];
const args = { path: 'src/app.ts', content: 'x' };
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = (samples) => ({
  p50: percentile(samples, 50),
  p99: percentile(samples, 99),
  n: samples.length,
});

try {
  // In process.
  const { loadRuntime } = await import('../dist/index.js');
  const runtime = await loadRuntime({ cwd: project, home });
  const inProcess = await runtime.runTurn({ sessionId: 'bench' }, async (turn) => {
    const samples = [];
    for (let i = 0; i < CALLS + 1000; i++) {
      const started = performance.now();
      const outcome = await turn.interceptToolCall({ toolName: 'write', toolArgs: args });
      if (i >= 1000) samples.push(performance.now() - started);
      if (!outcome.blocked) throw new Error('expected workflow-guard to block');
    }
    return samples;
  });

  // Over the bridge, from Node.
  const server = spawn(serverCommand[0], [...serverCommand.slice(1), '--cwd', project], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map();
  createInterface({ input: server.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let nextId = 1;
  const call = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await call('initialize', {});
  const { result } = await call('turn/start', { session_id: 'bench' });
  const bridgeFirst = [];
  const bridge = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const started = performance.now();
    const answer = await call('intercept_tool_call', {
      turn_id: result.turn_id,
      tool_name: 'write',
      tool_args: args,
    });
    const elapsed = performance.now() - started;
    if (i < FIRST) bridgeFirst.push(elapsed);
    if (i >= WARMUP) bridge.push(elapsed);
    if (!answer.result?.blocked)
      throw new Error(`expected a block over the bridge: ${JSON.stringify(answer)}`);
  }
  server.stdin.end();
  await new Promise((resolve) => server.on('exit', resolve));

  // Over the bridge, from the Python client.
  let python;
  const py = spawnSync(
    'python3',
    [join(root, 'bench', 'bridge_client.py'), JSON.stringify(serverCommand), project],
    {
      env: { ...process.env, BENCH_FIRST: String(FIRST), BENCH_WARMUP: String(WARMUP) },
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (py.error?.code === 'ENOENT') {
    console.error('python3 not found: the Python client is not measured');
  } else if (py.status !== 0) {
    throw new Error(`the Python bridge benchmark failed (exit ${py.status})`);
  } else {
    const samples = JSON.parse(py.stdout.toString());
    python = { first: summary(samples.first), steady: summary(samples.steady) };
  }

  // One process per call: Claude Code's command hook, as Claude Code runs it.
  const perProcess = [];
  const event = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'bench',
    cwd: project,
    tool_name: 'Write',
    tool_input: { file_path: join(project, 'src/app.ts'), content: 'x' },
  });
  for (let i = 0; i < PROCESSES + 1; i++) {
    const started = performance.now();
    const run = spawnSync(
      process.execPath,
      [join(root, 'bin', 'hermes.js'), 'hook', 'claude-code'],
      {
        input: event,
        stdio: ['pipe', 'pipe', 'inherit'],
        // The hook process itself, as it answered before the hook daemon (bench/hook.mjs).
        env: { ...process.env, HERMES_DAEMON: '0' },
      },
    );
    if (i > 0) perProcess.push(performance.now() - started);
    if (!run.stdout.toString().includes('"permissionDecision":"deny"')) {
      throw new Error(`expected a deny from the command hook: ${run.stdout}`);
    }
  }

  process.stdout.write(
    `${JSON.stringify({ inProcess: summary(inProcess), bridge: summary(bridge), bridgeFirst: summary(bridgeFirst), python, perProcess: summary(perProcess), warmup: WARMUP, serverFlags })}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
