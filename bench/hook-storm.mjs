// Load benchmark of the hook path: BENCH_STORM_SESSIONS (default 20) agent sessions at once, each
// a realistic Claude Code event stream through `hermes hook claude-code` (the client, the daemon
// it starts, or the in-process fallback), starting with no daemon running: the cold start is
// part of the measurement. Each session's stream (STREAM below) is a turn of reads, a shell
// call, a write refused before a plan, a plan written, a refused `rm -rf`, and the turn's end,
// twice; every decision is checked against the same stream answered in-process, one event at a
// time (which also fills the transpile cache, as any earlier use would have).
//
// The same storm is then run with `node -e 0` in place of each hook call, in the same run, so
// the ratio is taken under the same load (20 processes at once on a shared machine). Two gaps
// between events are measured: none (`storm`: every session's events back to back) and
// BENCH_STORM_THINK_MS (default 300 ms, `paced`: a model's reply between tool batches, a person
// typing before the prompt). Each is run BENCH_STORM_ROUNDS times (default 3), each round from a
// cold start (no daemon, a new socket folder). Run by bench/run.mjs, which prints the table; the
// samples go to stdout as one JSON line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrappedHookCommand } from '../dist/host/command-hook/hook-wrapper.js';
import { timedCall } from './timed-call.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'hermes.js');
const SESSIONS = Math.max(1, Number(process.env.BENCH_STORM_SESSIONS ?? 20));
const ROUNDS = Math.max(1, Number(process.env.BENCH_STORM_ROUNDS ?? 3));
const THINK_MS = Math.max(0, Number(process.env.BENCH_STORM_THINK_MS ?? 300));

const work = mkdtempSync(join(tmpdir(), 'hermes-storm-'));
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(join(project, 'docs'));
mkdirSync(join(project, 'src'));
mkdirSync(home);
writeFileSync(join(project, 'docs', 'MODULES.md'), '# Modules\n- src/: the app\n');
writeFileSync(join(project, 'src', 'app.ts'), 'export const answer = 42;\n');
// The guards named as the README names them (compiled into the runtime's bundle), or, with
// BENCH_STORM_GUARDS=path, by the path of their TypeScript sources (loaded through jiti, as a
// user's own extension in a folder is).
const GUARDS = process.env.BENCH_STORM_GUARDS === 'path' ? 'path' : 'package';
const guards = ['workflow-guard', 'module-router'].map((name) =>
  GUARDS === 'path' ? join(root, 'extensions', name) : `hermes-extensions/${name}`,
);
writeFileSync(join(home, 'config.yaml'), `extensions:\n  paths: ${JSON.stringify(guards)}\n`);

let calls = 0;
/** One turn of a session, as Claude Code sends it: [event name, fields, think before it]. */
const turn = () => [
  ['UserPromptSubmit', { prompt: 'Fix the off-by-one in src/app.ts' }, 'think'],
  ['PreToolUse', tool('Read', { file_path: join(project, 'docs', 'MODULES.md') })],
  ['PostToolUse', tool('Read', { file_path: join(project, 'docs', 'MODULES.md') }, 'r')],
  ['PostToolBatch', {}],
  ['PreToolUse', tool('Read', { file_path: join(project, 'src', 'app.ts') }), 'think'],
  ['PostToolUse', tool('Read', { file_path: join(project, 'src', 'app.ts') }, 'r')],
  ['PostToolBatch', {}],
  ['PreToolUse', tool('Bash', { command: 'git status', description: 'status' }), 'think'],
  ['PostToolUse', tool('Bash', { command: 'git status', description: 'status' }, 'r')],
  ['PostToolBatch', {}],
  [
    'PreToolUse',
    tool('Edit', { file_path: join(project, 'src', 'app.ts'), old_string: '42', new_string: '43' }),
    'think',
  ],
  ['PostToolBatch', {}],
  [
    'PreToolUse',
    tool('Write', { file_path: join(project, 'plans/active/plan.md'), content: '# Plan\n' }),
    'think',
  ],
  [
    'PostToolUse',
    tool('Write', { file_path: join(project, 'plans/active/plan.md'), content: '# Plan\n' }, 'r'),
  ],
  ['PostToolBatch', {}],
  ['PreToolUse', tool('Bash', { command: 'rm -rf src', description: 'clean' }), 'think'],
  ['PostToolBatch', {}],
  ['Stop', { stop_hook_active: false }, 'think'],
];
// Claude Code sends SessionStart as the session starts, before its first prompt (the installed
// hook answers it at once while the daemon loads the session's runtime: src/host/daemon/warm.ts).
const STREAM = [
  ['SessionStart', { source: 'startup' }],
  ...turn(),
  ...turn(),
  ['SessionEnd', { reason: 'exit' }],
];
/** The index of each session's first prompt in STREAM. */
const FIRST_PROMPT = STREAM.findIndex(([name]) => name === 'UserPromptSubmit');

function tool(name, input, response) {
  const id = `toolu_${name}_${calls++}`;
  return {
    tool_name: name,
    tool_input: input,
    tool_use_id: id,
    ...(response ? { tool_response: { ok: true } } : {}),
  };
}

function eventOf(session, [name, fields]) {
  return JSON.stringify({
    session_id: session,
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: name,
    ...fields,
    // Each session's calls have their own ids, as an agent's do.
    ...(fields.tool_use_id ? { tool_use_id: `${fields.tool_use_id}_${session}` } : {}),
  });
}

/** What the answer decides: the permission decision and its reason, or the block, or nothing. */
function decisionOf(stdout) {
  if (stdout.trim() === '') return 'none';
  const answer = JSON.parse(stdout);
  const out = answer.hookSpecificOutput;
  if (out?.permissionDecision) return `${out.permissionDecision}: ${out.permissionDecisionReason}`;
  if (answer.decision) return `${answer.decision}: ${answer.reason}`;
  return 'context';
}

/** One process in the project, its stdin the event; resolves its wall time and output. */
const call = (args, env, input) => timedCall(args, env, input, project);

/**
 * What each storm runs for an event: `node -e 0`; `hermes hook claude-code`; or the program
 * `hook install claude-code` installs, inline (`sh -c`), whose Perl hook client asks the warm
 * daemon before Node starts (docs/command-hooks.md, "The Perl hook client").
 */
const RUNS = {
  node: (env, input) => call(['-e', '0'], env, input),
  hook: (env, input) => call([bin, 'hook', 'claude-code'], env, input),
  installed: (env, input) => {
    const pins = { HERMES_HOME: env.HERMES_HOME, HERMES_DAEMON_DIR: env.HERMES_DAEMON_DIR };
    const argv = [process.execPath, bin, 'hook', 'claude-code'];
    const line = wrappedHookCommand('claude-code', argv, pins);
    return timedCall(['-c', line], env, input, project, '/bin/sh');
  },
};

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const base = { ...process.env, HERMES_HOME: home };
delete base.HERMES_DAEMON;
// Against a bare Node start: a bundle NODE_EXTRA_CA_CERTS names is parsed by every Node as it
// starts, `node -e 0` and each hook alike, which would hide what a hook costs (bench/hook.mjs).
delete base.NODE_EXTRA_CA_CERTS;

// The expected decisions: one session in-process, one event at a time.
const expected = [];
for (const step of STREAM) {
  const { stdout } = await call(
    [bin, 'hook', 'claude-code'],
    { ...base, HERMES_DAEMON: '0' },
    eventOf('expected', step),
  );
  expected.push(decisionOf(stdout));
}
if (!expected.some((d) => d.startsWith('deny')) || !expected.some((d) => d === 'none'))
  throw new Error(`the stream should both refuse and let through: ${expected.join(' | ')}`);

/**
 * SESSIONS sessions at once, each its stream in order, each event through RUNS[`kind`]; `skip`:
 * the stream's events left out (none, or SessionStart: a hook installed without it). Returns per
 * event name the wall times, each session's first prompt's apart too (`first`), and the wrong
 * decisions.
 */
async function storm(round, think, kind, env, skip = []) {
  const times = {};
  const first = [];
  const wrong = [];
  const session = async (s) => {
    const id = `storm-${round}-${s}-${kind}${skip.join('')}`;
    for (const [i, step] of STREAM.entries()) {
      if (skip.includes(step[0])) continue;
      if (think > 0 && step[2] === 'think') await sleep(think);
      const input = eventOf(id, step);
      const { ms, stdout } = await RUNS[kind](env, input);
      times[step[0]] ??= [];
      times[step[0]].push(ms);
      if (i === FIRST_PROMPT) first.push(ms);
      if (kind !== 'node' && decisionOf(stdout) !== expected[i])
        wrong.push({
          session: id,
          event: i,
          got: decisionOf(stdout),
          expected: expected[i],
          answer: stdout.slice(0, 400),
        });
    }
  };
  await Promise.all(Array.from({ length: SESSIONS }, (_, s) => session(s)));
  return { times, first, wrong };
}

/** The daemons running with `env` (then stopped): how many were started for the round. */
function daemonsOf(env) {
  const daemons = spawnSync(process.execPath, [bin, 'daemon', 'status', '--json'], {
    env,
    encoding: 'utf8',
  });
  let started = 0;
  try {
    started = JSON.parse(daemons.stdout).length;
  } catch {}
  spawnSync(process.execPath, [bin, 'daemon', 'stop', '--all'], { env, stdio: 'ignore' });
  return started;
}

const results = [];
try {
  let round = 0;
  for (const [mode, think] of [
    ['storm', 0],
    ['paced', THINK_MS],
  ]) {
    for (let r = 0; r < ROUNDS; r++) {
      round++;
      // A new socket folder for each storm: no daemon runs, its first events start one. `before`:
      // the hook installed without SessionStart (the first prompt starts the daemon); `hook`: with.
      const fresh = (name) => {
        const sockets = join(work, `sockets-${round}-${name}`);
        mkdirSync(sockets, { mode: 0o700 });
        return { ...base, HERMES_DAEMON_DIR: sockets };
      };
      const node = await storm(round, think, 'node', fresh('node'));
      const beforeEnv = fresh('before');
      const before = await storm(round, think, 'hook', beforeEnv, ['SessionStart']);
      const beforeStarted = daemonsOf(beforeEnv);
      const hookEnv = fresh('hook');
      const hook = await storm(round, think, 'hook', hookEnv);
      const started = daemonsOf(hookEnv);
      const installedEnv = fresh('installed');
      const installed = await storm(round, think, 'installed', installedEnv);
      const installedStarted = daemonsOf(installedEnv);
      results.push({
        mode,
        think,
        round,
        node: node.times,
        nodeFirst: node.first,
        hook: hook.times,
        hookFirst: hook.first,
        before: before.times,
        beforeFirst: before.first,
        installed: installed.times,
        installedFirst: installed.first,
        started,
        beforeStarted,
        installedStarted,
        wrong: [...before.wrong, ...hook.wrong, ...installed.wrong],
        load: loadavg()[0],
      });
      for (const [name, run] of [
        ['before', before],
        ['hook', hook],
        ['installed', installed],
      ]) {
        if (run.wrong.length > 0) {
          console.error(
            `round ${round} (${name}): ${run.wrong.length} wrong decision(s), first:`,
            run.wrong[0],
          );
        }
      }
    }
  }
  process.stdout.write(
    `${JSON.stringify({ sessions: SESSIONS, events: STREAM.length, rounds: ROUNDS, thinkMs: THINK_MS, guards: GUARDS, results })}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
