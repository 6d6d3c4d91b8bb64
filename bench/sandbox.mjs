// What the OS sandbox adds to one shell command (README, The sandbox), and what workflow-guard's
// decision costs with it. Prints one JSON line:
// { available, runs: { name: ms }, initMs, decisions: { name: µs } } (medians).
// - a command run as the agent runs it (`bash -c`), bare and in the sandbox two ways: the line
//   workflow-guard makes (the sandbox runtime's `srt` command line, which starts its own network
//   filter), and the runtime's library (`SandboxManager.wrapWithSandbox` in a process that keeps
//   its filter running; its one-time start is `initMs`);
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
const {
  groundSandboxAvailability,
  groundSandboxCall,
  protectedGround,
  sandboxAvailability,
  sandboxCommand,
} = await import('../dist/policy/index.js');

const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 15);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
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
const result = { available: availability.available, runs: {}, decisions: {} };

if (availability.available) {
  const bash = (line) => {
    const run = spawnSync('bash', ['-c', line], { cwd: project, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${line}: ${run.stderr}`);
  };
  const command = 'cat src/app.ts > /dev/null';
  const made = sandboxCommand(command, { root: project, writable: ['plans/'] });
  result.runs['bare (bash -c)'] = median(
    Array.from({ length: RUNS }, () => timeMs(() => bash(command))),
  );
  result.runs['sandboxed: the srt line'] = median(
    Array.from({ length: RUNS }, () => timeMs(() => bash(made.command))),
  );
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
