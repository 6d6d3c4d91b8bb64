// Hook-call benchmark: one `hermes hook claude-code` PreToolUse process beside `node -e 0`, with
// 50 TypeScript extensions installed (bench/fifty-extensions.mjs) plus workflow-guard and
// module-router, each a fresh process, alternating, BENCH_HOOK_RUNS times (default 11) after one
// unmeasured round that fills the caches and warms the daemon:
//   in-process    `HERMES_DAEMON=0`: the framework loaded by the hook process itself;
//   cold          no daemon running: the hook answers in-process and starts one (stopped again
//                 before the next run);
//   steady        a warm daemon answers;
// and, when the daemon is `hermes daemon run`, its answer alone: BENCH_HOOK_ANSWERS requests
// (default 300) over its socket from this process, as the client sends them (ask.ts), so what a
// hook call's start costs is apart from what the daemon's answer costs.
// The daemon is `hermes daemon run` when the build has that command; otherwise a stand-in that
// answers at once (bench/hook-fake-daemon.mjs), which measures the client's own cost. The result
// says which. `BENCH_HOOK_BEFORE=<another copy's bin/hermes.js>` (a build of another commit, of
// the same version, so that it reaches the same daemon) adds its `hermes hook` and its program
// inline to each round, for a before-and-after in one run. Run by bench/run.mjs, which prints the table; the samples (ms) go to stdout as one
// JSON line.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hermesHome } from '../dist/config/locations.js';
import {
  hookFile,
  hookFileText,
  hookLine,
  writeHookFile,
} from '../dist/host/command-hook/hook-line.js';
import { wrappedHookCommand } from '../dist/host/command-hook/hook-wrapper.js';
import { ask } from '../dist/host/daemon/ask.js';
import { DAEMON_PROTOCOL, daemonKey, daemonSocketPath } from '../dist/host/daemon/protocol.js';
import { N, writeExtensions } from './fifty-extensions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'hermes.js');
const RUNS = Math.max(1, Number(process.env.BENCH_HOOK_RUNS ?? 11));
const ANSWERS = Math.max(1, Number(process.env.BENCH_HOOK_ANSWERS ?? 300));
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

const work = mkdtempSync(join(tmpdir(), 'hermes-hook-bench-'));
const home = join(work, 'home');
const project = join(work, 'project');
const sockets = join(work, 'sockets');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(sockets, { mode: 0o700 });
mkdirSync(join(project, 'docs'));
writeFileSync(join(project, 'docs', 'MODULES.md'), '# Modules\n- src/: the app\n');
writeExtensions(home);
const guards = ['workflow-guard', 'module-router'].map((name) => join(root, 'extensions', name));
writeFileSync(join(home, 'config.yaml'), `extensions:\n  paths: ${JSON.stringify(guards)}\n`);
const event = JSON.stringify({
  session_id: 'bench',
  transcript_path: '/dev/null',
  cwd: project,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'git status', description: 'status' },
});

const base = { ...process.env, HERMES_HOME: home, HERMES_DAEMON_DIR: sockets };
delete base.HERMES_DAEMON;
// The yardstick is a bare Node start. Node parses the file NODE_EXTRA_CA_CERTS names as it
// starts (about 50 ms for a system's bundle of roots, twice the rest of its start), which the
// installed hook leaves to the daemon (docs/command-hooks.md, "The certificates a hook does not
// load"): with it in the environment, `node -e 0` and the installed command are timed with it
// too, against a warm daemon of their own (the variable is part of its key), as rows apart.
const certificates = process.env.NODE_EXTRA_CA_CERTS;
delete base.NODE_EXTRA_CA_CERTS;
const withCertificates =
  certificates === undefined ? undefined : { ...base, NODE_EXTRA_CA_CERTS: certificates };
const socketOf = (env) => daemonSocketPath(daemonKey(hermesHome(home), version, env), env);
const run = (args, env, input) => {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    env,
    cwd: project,
    input,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited with ${result.status}`);
  return { ms, stdout: result.stdout.toString() };
};
const hook = (env) => run([bin, 'hook', 'claude-code'], env, event);
// The command `hermes hook install claude-code` writes, run as Claude Code runs a hook (`sh -c`):
// the short line that reads its program from $HERMES_HOME/hook-commands/claude-code
// (hook-line.ts), and the same program inline in the command line (what the project form, and the
// user form before it, run).
const argv = [process.execPath, bin, 'hook', 'claude-code'];
const pins = { HERMES_HOME: home, HERMES_DAEMON_DIR: sockets };
const inlineCommand = wrappedHookCommand('claude-code', argv, pins);
const programText = hookFileText('claude-code', argv, pins);
if (programText === undefined) throw new Error('the bench folder has a path that is not ASCII');
writeHookFile(hookFile(home, 'claude-code'), programText);
const lineCommand = hookLine(hookFile(home, 'claude-code'), 'PreToolUse', programText, 'fix');
const through = (command) => (env) => {
  const started = performance.now();
  const result = spawnSync('/bin/sh', ['-c', command], {
    env,
    cwd: project,
    input: event,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`the installed command exited with ${result.status}`);
  return { ms, stdout: result.stdout.toString() };
};
const installed = through(lineCommand);
const inline = through(inlineCommand);
// The same program with the Node client alone: its package path (a link to bin/hermes.js, which
// Node follows) has no dist/hook-client.pl beside it, so the Perl hook client is not run
// (docs/command-hooks.md, "The Perl hook client").
mkdirSync(join(work, 'node-only', 'bin'), { recursive: true });
symlinkSync(bin, join(work, 'node-only', 'bin', 'hermes.js'));
const nodeOnly = through(
  wrappedHookCommand(
    'claude-code',
    [process.execPath, join(work, 'node-only', 'bin', 'hermes.js'), 'hook', 'claude-code'],
    pins,
  ),
);
const beforeBin = process.env.BENCH_HOOK_BEFORE;
const before =
  beforeBin === undefined
    ? undefined
    : {
        hook: (env) => run([beforeBin, 'hook', 'claude-code'], env, event),
        inline: through(
          wrappedHookCommand(
            'claude-code',
            [process.execPath, beforeBin, 'hook', 'claude-code'],
            pins,
          ),
        ),
      };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** The warm daemon's answer alone, ms each: the event of every call above, asked from here. */
async function answers(env) {
  const request = { v: DAEMON_PROTOCOL, agent: 'claude-code', stdin: event, cwd: project, env };
  const ms = [];
  for (let i = 0; i < ANSWERS; i++) {
    const started = performance.now();
    const answer = await ask(socketOf(env), request, Date.now() + 20_000);
    ms.push(performance.now() - started);
    if (!('exitCode' in answer)) throw new Error(`the daemon did not answer: ${answer.why}`);
  }
  return ms;
}
async function until(check, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await sleep(25);
  return check();
}

const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' }).stdout;
const daemonKind = /^\s+daemon\b/m.test(help) ? 'hermes daemon run' : 'stand-in (answers at once)';
let daemon;
let certificatesDaemon;
try {
  const inProcessEnv = { ...base, HERMES_DAEMON: '0' };
  const expected = hook(inProcessEnv).stdout; // fills the jiti cache; unmeasured

  // The warm daemon of the steady runs.
  daemon =
    daemonKind === 'hermes daemon run'
      ? spawn(process.execPath, [bin, 'daemon', 'run'], { env: base, stdio: 'ignore' })
      : spawn(
          process.execPath,
          [
            join(root, 'bench', 'hook-fake-daemon.mjs'),
            socketOf(base),
            JSON.stringify({ stdout: expected, stderr: '', exitCode: 0 }),
          ],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
  if (withCertificates !== undefined && daemonKind === 'hermes daemon run') {
    certificatesDaemon = spawn(process.execPath, [bin, 'daemon', 'run'], {
      env: withCertificates,
      stdio: 'ignore',
    });
  }
  if (!(await until(() => existsSync(socketOf(base)), 30_000)))
    throw new Error(`the daemon (${daemonKind}) did not start listening within 30 s`);
  const checked = [hook, hook, installed, inline, nodeOnly];
  if (before !== undefined) checked.push(before.hook, before.inline);
  for (const call of checked) {
    const answer = call(base).stdout;
    if (answer !== expected)
      throw new Error(
        `the daemon answered ${JSON.stringify(answer)}, in-process ${JSON.stringify(expected)}`,
      );
  }

  let colds = 0;
  /** One hook call with no daemon for it; the daemon it starts is stopped before going on. */
  const cold = async () => {
    const env = { ...base, HERMES_DAEMON_DIR: join(work, `cold-${colds++}`) };
    const result = hook(env);
    if (daemonKind === 'hermes daemon run') {
      if (await until(() => existsSync(socketOf(env)), 30_000))
        spawnSync(process.execPath, [bin, 'daemon', 'stop'], { env, stdio: 'ignore' });
    } else await sleep(300); // the start attempt fails (no such command) and exits
    return result;
  };
  await cold();
  run(['-e', '0'], base);

  const samples = {
    node: [],
    inProcess: [],
    cold: [],
    steady: [],
    installed: [],
    inline: [],
    nodeOnly: [],
  };
  if (certificatesDaemon !== undefined) {
    if (!(await until(() => existsSync(socketOf(withCertificates)), 30_000)))
      throw new Error('the daemon for NODE_EXTRA_CA_CERTS did not start listening within 30 s');
    if (installed(withCertificates).stdout !== expected)
      throw new Error('with NODE_EXTRA_CA_CERTS the installed command answered differently');
    Object.assign(samples, { nodeCertificates: [], installedCertificates: [] });
  }
  if (before !== undefined) Object.assign(samples, { beforeSteady: [], beforeInline: [] });
  for (let r = 0; r < RUNS; r++) {
    samples.node.push(run(['-e', '0'], base).ms);
    samples.inProcess.push(hook(inProcessEnv).ms);
    samples.cold.push((await cold()).ms);
    // With a build to compare, each pair in turns first and second: the calls after the cold
    // run's daemon start and stop would otherwise always meet a busier machine than the rest.
    const pairs = [
      ['steady', hook, 'beforeSteady', before?.hook],
      ['installed', installed],
      ['nodeOnly', nodeOnly],
      ['inline', inline, 'beforeInline', before?.inline],
    ];
    if (certificatesDaemon !== undefined) {
      samples.nodeCertificates.push(run(['-e', '0'], withCertificates).ms);
      samples.installedCertificates.push(installed(withCertificates).ms);
    }
    for (const [name, call, otherName, other] of pairs) {
      if (other === undefined || r % 2 === 0) samples[name].push(call(base).ms);
      if (other !== undefined) samples[otherName].push(other(base).ms);
      if (other !== undefined && r % 2 === 1) samples[name].push(call(base).ms);
    }
  }
  if (daemonKind === 'hermes daemon run') samples.answer = await answers(base);
  process.stdout.write(
    `${JSON.stringify({ extensions: N, runs: RUNS, daemon: daemonKind, before: beforeBin, certificates, samples })}\n`,
  );
} finally {
  daemon?.kill();
  certificatesDaemon?.kill();
  rmSync(work, { recursive: true, force: true });
}
