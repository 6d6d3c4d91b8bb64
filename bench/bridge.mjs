// Per-call latency of intercept_tool_call with workflow-guard loaded: in process, over the stdio
// bridge (one JSON-RPC round trip per call to a long-running `hermes extensions serve --stdio`),
// and as one process per call (`hermes hook claude-code`, a command hook). Run by
// bench/run.mjs; the samples (ms) go to stdout as one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.BENCH_BRIDGE_CALLS ?? 2000);
const PROCESSES = Number(process.env.BENCH_BRIDGE_PROCESSES ?? 10);

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

  // Over the bridge.
  const server = spawn(
    process.execPath,
    [join(root, 'bin', 'hermes.js'), 'extensions', 'serve', '--stdio', '--cwd', project],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
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
  const bridge = [];
  for (let i = 0; i < CALLS + 1000; i++) {
    const started = performance.now();
    const answer = await call('intercept_tool_call', {
      turn_id: result.turn_id,
      tool_name: 'write',
      tool_args: args,
    });
    if (i >= 1000) bridge.push(performance.now() - started);
    if (!answer.result?.blocked)
      throw new Error(`expected a block over the bridge: ${JSON.stringify(answer)}`);
  }
  server.stdin.end();
  await new Promise((resolve) => server.on('exit', resolve));

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
      },
    );
    if (i > 0) perProcess.push(performance.now() - started);
    if (!run.stdout.toString().includes('"permissionDecision":"deny"')) {
      throw new Error(`expected a deny from the command hook: ${run.stdout}`);
    }
  }

  process.stdout.write(
    `${JSON.stringify({ inProcess: summary(inProcess), bridge: summary(bridge), perProcess: summary(perProcess) })}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
