// What the OS sandbox adds to one shell command (README, The sandbox), and what workflow-guard's
// decision costs with it. Prints one JSON line:
// { available, runs: { name: ms }, p99: { name: ms }, initMs, decisions: { name: µs } } (medians).
// - a command run as the agent runs it (`bash -c true`), bare, in bare bubblewrap, and in the
//   sandbox four ways: workflow-guard's own bubblewrap line (no network allowed), the same with a
//   network domain allowed, pointed at the hook daemon's network filter (kept running here as the
//   daemon keeps it), the sandbox runtime's `srt` command line (a network domain allowed without
//   the daemon; it starts its own network filter), and the runtime's library (`SandboxManager.wrapWithSandbox` in a process that keeps its
//   filter running; its one-time start is `initMs`);
// - the guard's decision for a command proven to only read (`git status`), with the sandbox on
//   and off, and for one it sandboxes (`npm test`): proven reads pay nothing;
// - the framework's protected-ground sandbox (docs/trust.md, Protected ground), which runs with no
//   guard at all: the command in its bubblewrap line, and the decision with no extension for a
//   command shown to leave protected ground alone (`ls src`) and one it wraps (`git status`:
//   git takes settings from the project's files).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { loadRuntime } = await import('../dist/index.js');
const { NetworkFilters } = await import('../dist/host/daemon/network-filters.js');
const { serveNetworkFilterFrom } = await import('../dist/policy/sandbox/network-filter.js');
const {
  groundSandboxAvailability,
  groundSandboxCall,
  protectedGround,
  sandboxAvailability,
  sandboxCommand,
} = await import('../dist/policy/index.js');

const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 15);
// The cheap lines run more, for a p99 that is not the maximum of 15.
const FAST_RUNS = Number(process.env.BENCH_SANDBOX_FAST_RUNS ?? 100);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const timeMs = (fn) => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};

const project = mkdtempSync(join(tmpdir(), 'hermes-bench-sandbox-'));
mkdirSync(join(project, 'src'));
mkdirSync(join(project, 'plans'));
writeFileSync(join(project, 'src/app.ts'), 'x\n');
spawnSync('git', ['init', '-q'], { cwd: project });
const home = mkdtempSync(join(tmpdir(), 'hermes-bench-sandbox-home-'));
const configFor = (sandbox) =>
  `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions', 'workflow-guard'))}]\n  workflow-guard:\n    sandbox: ${sandbox}\n`;

const availability = sandboxAvailability();
const result = { available: availability.available, runs: {}, p99: {}, decisions: {} };

if (availability.available) {
  const bash = (line) => {
    const run = spawnSync('bash', ['-c', line], { cwd: project, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${line}: ${run.stderr}`);
  };
  // Side by side, interleaved (one run of each in turn, so the machine's load falls on all alike):
  // the command bare, in bubblewrap bare, in workflow-guard's own bubblewrap line (no network
  // allowed: bwrap-line.ts) and in the sandbox runtime's `srt` line (what is made when a network
  // domain is allowed, and what ran for every command before).
  const command = 'true';
  const own = sandboxCommand(command, { root: project, writable: ['plans/'] });
  const srt = sandboxCommand(command, {
    root: project,
    writable: ['plans/'],
    network: ['example.com'],
  });
  // As a runtime of the hook daemon makes it: pointed at the daemon's filter for the domain.
  const quiet = { debug() {}, info() {}, warn() {}, error: (message) => console.error(message) };
  const filters = new NetworkFilters(quiet);
  serveNetworkFilterFrom({ want: (dir, domains) => filters.want(dir, domains) });
  const daemon = sandboxCommand(command, {
    root: project,
    writable: ['plans/'],
    network: ['example.com'],
  });
  serveNetworkFilterFrom(undefined);
  if ([own, srt, daemon].some((made) => made.kind !== 'sandboxed'))
    throw new Error('not sandboxed');
  if (
    !own.command.includes(' --unshare-net ') ||
    !srt.command.includes(' --settings ') ||
    !daemon.command.includes('/network-bridge-')
  ) {
    throw new Error('the lines are not the three kinds');
  }
  // Once before the runs: the line waits for the filter's start (about a second, once per daemon).
  bash(daemon.command);
  const lines = {
    'bare (`bash -c true`)': command,
    'bare bubblewrap (`bwrap --ro-bind / / --dev /dev -- true`)':
      'bwrap --ro-bind / / --dev /dev -- true',
    'sandboxed: our bubblewrap line (no network allowed)': own.command,
    "sandboxed: our bubblewrap line, a network domain allowed (the daemon's filter)":
      daemon.command,
    'sandboxed: the `srt` line (a network domain allowed; the fallback)': srt.command,
  };
  const samples = Object.fromEntries(Object.keys(lines).map((name) => [name, []]));
  for (let i = 0; i < FAST_RUNS; i++) {
    for (const [name, line] of Object.entries(lines)) {
      // The `srt` line costs ~0.6 s a run: its runs are fewer.
      if (name.includes('srt') && i >= RUNS) continue;
      samples[name].push(timeMs(() => bash(line)));
    }
  }
  for (const [name, values] of Object.entries(samples)) {
    result.runs[name] = median(values);
    result.p99[name] = quantile(values, 0.99);
  }
  filters.close();
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  const initStart = performance.now();
  await SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [join(project, 'plans')], denyWrite: [] },
  });
  result.initMs = performance.now() - initStart;
  const libraryRuns = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const wrapped = await SandboxManager.wrapWithSandbox(command);
    await new Promise((resolve, reject) => {
      const child = spawnAsync(wrapped);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
    });
    libraryRuns.push(performance.now() - start);
  }
  result.runs['sandboxed: the library, filter already running'] = median(libraryRuns);
  result.p99['sandboxed: the library, filter already running'] = quantile(libraryRuns, 0.99);
  await SandboxManager.reset();
}

if (groundSandboxAvailability().available) {
  const command = 'cat src/app.ts > /dev/null';
  const made = groundSandboxCall({ command }, protectedGround(project));
  if (made.kind !== 'sandboxed') throw new Error(made.reason);
  result.runs['protected-ground sandbox (bwrap line)'] = median(
    Array.from({ length: RUNS }, () =>
      timeMs(() => {
        const run = spawnSync('bash', ['-c', made.args.command], { cwd: project });
        if (run.status !== 0) throw new Error(`${made.args.command}: ${run.stderr}`);
      }),
    ),
  );
}

for (const mode of ['none', 'off', 'auto']) {
  // `none`: no extension at all, the framework's own rule alone.
  writeFileSync(join(home, 'config.yaml'), mode === 'none' ? 'extensions: {}\n' : configFor(mode));
  const runtime = await loadRuntime({ cwd: project, home });
  const decide = (command) =>
    runtime.runTurn({ sessionId: 'bench' }, (turn) =>
      turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
    );
  for (const command of [
    ...(mode === 'none' ? ['ls src'] : []),
    'git status',
    ...(mode === 'auto' && availability.available ? ['npm test'] : []),
  ]) {
    for (let i = 0; i < 50; i++) await decide(command);
    const samples = [];
    for (let r = 0; r < 5; r++) {
      const start = performance.now();
      for (let i = 0; i < 200; i++) await decide(command);
      samples.push(((performance.now() - start) / 200) * 1000);
    }
    const name = mode === 'none' ? 'no extension' : `sandbox: ${mode}`;
    result.decisions[`\`${command}\`, ${name}`] = median(samples);
  }
  await runtime.close();
}

rmSync(project, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify(result));

function spawnAsync(line) {
  return spawn('bash', ['-c', line], { cwd: project, stdio: 'ignore' });
}
