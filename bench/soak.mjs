// Soak of the hook daemon under faults: one `hermes daemon run`, BENCH_SOAK_EVENTS (default 2,000)
// Claude Code PreToolUse events over BENCH_SOAK_PROJECTS projects (default 10) and
// BENCH_SOAK_ENVS hook environments (default 2: a variable the extension reads as it loads, so
// each is a runtime of its own — 20 runtimes wanted, over what the daemon's memory cap keeps), as sessions of
// BENCH_SOAK_SESSION events (default 20) each, BENCH_SOAK_AT_ONCE sessions at once (default 6),
// each sending its next event once the last is answered, the sessions going round the projects
// and environments; sent over the daemon's socket as the hook client sends them (the client's
// deadline included). Every BENCH_SOAK_FAULT_EVERY-th event (default 100) ends
// its runtime on purpose: the extension loops synchronously on `spin` and fills its heap on `oom`
// (the daemon runs with a heap limit of 192 MB per thread), alternately. Every project keeps the
// audit trail (the shipped audit-log extension).
//
// What it reports: each event's outcome (decided by the extensions — allowed or refused by them
// —, refused by the framework because its runtime ended or was late, not started by the daemon,
// or no answer at all), then, with the daemon stopped (its runtimes closed, their trails
// flushed), the audit lines written against the events decided, per project — they must be equal:
// each decided call is one `hook_decision` line —, the lock files left behind, and the daemon's
// RSS, open file descriptors, threads, runtimes and the files under the home and the projects'
// `.hermes`, sampled BENCH_SOAK_SAMPLES times (default 10) over the run. Run by bench/run.mjs, which
// prints the table and exits 1 when lines were lost; the samples go to stdout as one JSON line.
//
// Then what a runtime costs, with a second daemon and no faults: its RSS at rest (no event yet),
// after one session of 5 events in each of BENCH_SOAK_WARM projects (default 8)
// in turn — one warm runtime each, its memory cap set out of the way so that all of them stay —,
// and once its runtimes have been let go for idleness (HERMES_DAEMON_RUNTIME_IDLE_MS set to
// BENCH_SOAK_IDLE_MS, default 60,000: longer than warming them all takes, on a loaded machine too).
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'hermes.js');
const count = (name, fallback) => Math.max(1, Math.floor(Number(process.env[name] ?? fallback)));
const EVENTS = count('BENCH_SOAK_EVENTS', 2000);
const PROJECTS = count('BENCH_SOAK_PROJECTS', 10);
const ENVS = count('BENCH_SOAK_ENVS', 2);
const AT_ONCE = count('BENCH_SOAK_AT_ONCE', 6);
const SESSION = count('BENCH_SOAK_SESSION', 20);
const FAULT_EVERY = count('BENCH_SOAK_FAULT_EVERY', 100);
const SAMPLES = count('BENCH_SOAK_SAMPLES', 10);
const WARM = count('BENCH_SOAK_WARM', 8);
const IDLE_MS = count('BENCH_SOAK_IDLE_MS', 60_000);
/** Events of each project's session in the memory phase. */
const WARM_EVENTS = 5;
/** The hook deadline (HERMES_HOOK_DEADLINE_MS): the agents' own by default. */
const DEADLINE_MS = count('BENCH_SOAK_DEADLINE_MS', 25_000);
/** What the hook client keeps of its deadline for its in-process answer (client.ts). */
const RESERVE_MS = 3_000;
const PROTOCOL = 3;
const FRAMEWORK_REFUSAL = 'Hermes could not check this call';

const work = mkdtempSync(join(tmpdir(), 'hermes-soak-'));
const home = join(work, 'home');
const sockets = join(work, 'sockets');
mkdirSync(join(home, 'extensions'), { recursive: true });
mkdirSync(sockets, { mode: 0o700 });
const projects = Array.from({ length: Math.max(PROJECTS, WARM) }, (_, i) => {
  const project = join(work, `project-${i}`);
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return project;
});
writeFileSync(
  join(home, 'config.yaml'),
  `extensions:\n  paths: ${JSON.stringify([join(root, 'extensions', 'audit-log')])}\n`,
);
// Reads SOAK_ENV as it loads (each value a runtime of its own); ends its runtime on `spin` (a
// loop that never yields) and `oom` (a heap that fills); refuses `rm`, and lets the rest through
// rewritten (a comment added): every call it decides is a decision of its, one audit line.
writeFileSync(
  join(home, 'extensions', 'faults.ts'),
  `import { block, defineExtension, rewrite } from 'hermes-extensions';
const flavour = process.env.SOAK_ENV ?? 'none';
export default defineExtension({
  name: 'faults',
  version: '1.0.0',
  setup(hermes) {
    hermes.on('intercept_tool_call', (e) => {
      const command = String(e.toolArgs.command ?? '');
      if (command === 'spin') for (;;) {}
      if (command === 'oom') {
        const hog: string[][] = [];
        for (;;) hog.push(new Array(100_000).fill(flavour));
      }
      if (command.startsWith('rm ')) return block('soak ' + flavour + ': no rm');
      return rewrite({ ...e.toolArgs, command: command + ' # soak ' + flavour });
    });
  },
});
`,
);

const env = { ...process.env, HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: sockets };
delete env.HERMES_DAEMON;
env.HERMES_HOOK_DEADLINE_MS = String(DEADLINE_MS);
env.NODE_OPTIONS = '--max-old-space-size=192';
// As the hook client starts the daemon (src/host/daemon/client.ts), unless set here already.
env.MALLOC_ARENA_MAX ??= '2';

/** `hermes daemon run`, resolved with its socket once it listens. */
function startDaemon(daemonEnv = env) {
  const child = spawn(process.execPath, [bin, 'daemon', 'run'], {
    env: daemonEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = /^ready (.+)$/m.exec(out);
      if (ready) resolve({ child, socket: ready[1], log: () => err });
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}): ${out}${err}`)));
  });
}

/**
 * One request line, as the hook client sends it; resolves the answer, or undefined when the
 * daemon closed without one (it did not start the event) or none came in time.
 */
function ask(socket, request, waitMs) {
  return new Promise((resolve) => {
    const connection = connect(socket);
    let text = '';
    const done = (answer) => {
      clearTimeout(timer);
      connection.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), waitMs);
    connection.setEncoding('utf8');
    connection.on('data', (chunk) => {
      text += chunk;
      const lines = text.split('\n');
      if (lines.length > 2) {
        try {
          done(JSON.parse(lines[1]));
        } catch {
          done(undefined);
        }
      }
    });
    connection.on('error', () => done(undefined));
    connection.on('close', () => done(undefined));
    connection.write(`${JSON.stringify(request)}\n`);
  });
}

/** The event of index `i`: its project, hook environment, session and command. */
function eventOf(i) {
  const session = Math.floor(i / SESSION);
  const p = session % PROJECTS;
  const e = Math.floor(session / PROJECTS) % ENVS;
  const fault = (i + 1) % FAULT_EVERY === 0;
  const faults = Math.floor((i + 1) / FAULT_EVERY);
  const command = fault
    ? faults % 2 === 1
      ? 'spin'
      : 'oom'
    : i % 5 === 0
      ? 'rm -rf build'
      : `ls ${i}`;
  return {
    p,
    fault,
    env: { ...env, SOAK_ENV: `e${e}` },
    stdin: JSON.stringify({
      session_id: `soak-${session}-p${p}-e${e}`,
      transcript_path: '/dev/null',
      cwd: projects[p],
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_use_id: `toolu_soak_${i}`,
      tool_input: { command, description: 'soak' },
    }),
  };
}

/** Why the framework refused, by reason (paths and numbers left out), and how often. */
const refusals = {};
/** What an answer was: decided by the extensions, refused by the framework, or none. */
function outcomeOf(answer) {
  if (answer === undefined) return 'notStarted';
  const out =
    answer.stdout.trim() === '' ? undefined : JSON.parse(answer.stdout).hookSpecificOutput;
  const reason = String(out?.permissionDecisionReason ?? answer.stderr);
  if (
    answer.exitCode === 0 &&
    !(out?.permissionDecision === 'deny' && reason.startsWith(FRAMEWORK_REFUSAL))
  )
    return 'decided';
  const why = reason
    .replace(FRAMEWORK_REFUSAL, '')
    .replace(/\/\S+/g, '…')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 160);
  refusals[why] = (refusals[why] ?? 0) + 1;
  return 'refused';
}

const linux = existsSync('/proc/self/status');
const entries = (dir) => {
  try {
    return readdirSync(dir).length;
  } catch {
    return null;
  }
};
/** Every file under `dir` (recursively), by path. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}
const watched = () => [home, ...projects.map((project) => join(project, '.hermes'))];

/** The daemon's resident memory (MB), from /proc; else from its status line. */
function rssOf(pid, status) {
  if (linux) {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    if (Number.isFinite(kb)) return kb / 1024;
  }
  return status ? status.rss / 1024 / 1024 : null;
}

async function sample(daemon, done, started) {
  const pid = daemon.child.pid;
  const status = await ask(daemon.socket, { v: PROTOCOL, control: 'status' }, 5_000);
  const rssMb = rssOf(pid, status);
  return {
    done,
    seconds: (performance.now() - started) / 1000,
    rssMb,
    fds: linux ? entries(`/proc/${pid}/fd`) : null,
    threads: linux ? entries(`/proc/${pid}/task`) : null,
    runtimes: status?.runtimes ?? null,
    files: watched().reduce((n, dir) => n + filesUnder(dir).length, 0),
  };
}

/** The `hook_decision` lines of a project's audit trail, rotated files included. */
function auditLines(project) {
  const dir = join(project, '.hermes', 'audit');
  if (!existsSync(dir)) return 0;
  let lines = 0;
  for (const name of readdirSync(dir)) {
    if (!/^audit\.jsonl(\.\d+)?$/.test(name)) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line.includes('"hook_decision"')) lines++;
    }
  }
  return lines;
}

/** The daemon of the memory phase (warmCosts), if started: killed with the soak's if left. */
let warmDaemon;

/**
 * What a runtime costs: a daemon's RSS at rest, then with 1…WARM runtimes warm (a session of
 * events in each project in turn, nothing failing), then once they have been let go for idleness.
 */
async function warmCosts() {
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const warmEnv = {
    ...env,
    SOAK_ENV: 'e0',
    HERMES_DAEMON_RUNTIME_IDLE_MS: String(IDLE_MS),
    // Out of the way: every runtime stays warm until it is idle.
    HERMES_DAEMON_MAX_MB: '100000',
  };
  warmDaemon = await startDaemon(warmEnv);
  const { socket, child } = warmDaemon;
  const status = () => ask(socket, { v: PROTOCOL, control: 'status' }, 5_000);
  /** Once its threads have settled: RSS and runtimes. */
  const measure = async () => {
    await wait(500);
    const s = await status();
    return { rssMb: rssOf(child.pid, s), runtimes: s?.runtimes ?? null };
  };
  const rest = await measure();
  const warm = [];
  for (let p = 0; p < WARM; p++) {
    for (let i = 0; i < WARM_EVENTS; i++) {
      const stdin = JSON.stringify({
        session_id: `warm-${p}`,
        transcript_path: '/dev/null',
        cwd: projects[p],
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_use_id: `toolu_warm_${p}_${i}`,
        tool_input: { command: i % 5 === 0 ? 'rm -rf build' : `ls ${i}`, description: 'warm' },
      });
      const request = { v: PROTOCOL, agent: 'claude-code', stdin, cwd: projects[p], env: warmEnv };
      await ask(socket, request, DEADLINE_MS);
    }
    warm.push(await measure());
  }
  // Let go once idle: waited for (the status says when none is left), at most a minute past it.
  const until = Date.now() + IDLE_MS + 60_000;
  while (((await status())?.runtimes ?? 0) > 0 && Date.now() < until) await wait(200);
  const letGo = await measure();
  await ask(socket, { v: PROTOCOL, control: 'stop' }, 5_000);
  const last = warm.at(-1);
  const first = warm[0];
  return {
    idleMs: IDLE_MS,
    rest,
    warm,
    letGo,
    // Past the first runtime, which also brings the thread kept started ahead for the next; by
    // the runtimes warm then (one let go meanwhile, on a slow machine, is not counted).
    perRuntimeMb:
      last.runtimes > 1 && first.runtimes === 1 && last.rssMb !== null && first.rssMb !== null
        ? (last.rssMb - first.rssMb) / (last.runtimes - 1)
        : null,
  };
}

const daemon = await startDaemon();
const outcomes = { decided: 0, refused: 0, notStarted: 0 };
const decidedBy = projects.map(() => 0);
const faultOutcomes = { decided: 0, refused: 0, notStarted: 0 };
const samples = [];
const started = performance.now();
let next = 0;
let done = 0;
let sampledAt = 0;
try {
  samples.push(await sample(daemon, 0, started));
  const one = async (event) => {
    const request = {
      v: PROTOCOL,
      agent: 'claude-code',
      stdin: event.stdin,
      cwd: projects[event.p],
      env: event.env,
      deadline: Date.now() + DEADLINE_MS - RESERVE_MS,
    };
    // Past the client's deadline it would have answered in-process; the daemon's answer may still
    // come (a stuck runtime is ended 2 s past the hook deadline), and is waited for.
    const outcome = outcomeOf(await ask(daemon.socket, request, DEADLINE_MS + 5_000));
    outcomes[outcome]++;
    if (event.fault) faultOutcomes[outcome]++;
    if (outcome === 'decided') decidedBy[event.p]++;
    done++;
    if (done >= sampledAt + EVENTS / SAMPLES && done < EVENTS) {
      sampledAt = done;
      samples.push(await sample(daemon, done, started));
    }
  };
  /** One agent: a session's events in order, then the next session no other agent has taken. */
  const agent = async () => {
    for (let first = next; first < EVENTS; first = next) {
      const end = Math.min(EVENTS, first + SESSION);
      next = end;
      for (let i = first; i < end; i++) await one(eventOf(i));
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, agent));
  samples.push(await sample(daemon, done, started));
  const seconds = (performance.now() - started) / 1000;

  // Stopped, its runtimes closed: every trail flushed that can be.
  await ask(daemon.socket, { v: PROTOCOL, control: 'stop' }, 5_000);
  const exitCode = await new Promise((resolve) => {
    if (daemon.child.exitCode !== null) resolve(daemon.child.exitCode);
    else daemon.child.once('exit', (code) => resolve(code));
  });
  const perProject = projects.map((project, p) => ({
    project: `project-${p}`,
    lines: auditLines(project),
    decided: decidedBy[p],
  }));
  const locksLeft = watched()
    .flatMap(filesUnder)
    .filter((path) => /\.lock$/.test(path))
    .map((path) => relative(work, path));
  const log = daemon.log();
  const memory = await warmCosts();
  process.stdout.write(
    `${JSON.stringify({
      events: EVENTS,
      projects: PROJECTS,
      envs: ENVS,
      atOnce: AT_ONCE,
      session: SESSION,
      faultEvery: FAULT_EVERY,
      deadlineMs: DEADLINE_MS,
      seconds,
      outcomes,
      faultOutcomes,
      audit: {
        lines: perProject.reduce((n, p) => n + p.lines, 0),
        decided: outcomes.decided,
        perProject,
      },
      locksLeft,
      refusals,
      rerouted: log.split('sent to a fresh one').length - 1,
      stuckFound: log.split('is stuck (its thread takes no event)').length - 1,
      closeTimeouts: log.split('did not finish within').length - 1,
      daemonExit: exitCode,
      samples,
      memory,
    })}\n`,
  );
} finally {
  if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  if (warmDaemon?.child.exitCode === null) warmDaemon.child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
