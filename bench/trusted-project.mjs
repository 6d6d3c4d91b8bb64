// Trusted-project benchmark: a project with 10 TypeScript and 10 `.mjs` extensions of its own in
// `.hermes/extensions/` (each a small guard with a helper module of its own; half the TypeScript
// ones and half the `.mjs` ones import zod), trusted with `hermes extensions trust --yes`, then:
//   load         a fresh process (bench/trusted-project-child.mjs) imports the framework by its
//                package name, runs `loadRuntime({ cwd, home })` and `close()`, then loads the
//                project a second time in the same process; BENCH_TRUSTED_RUNS times (default 11)
//                with the disk caches warm, after one unmeasured run that fills them;
//   cold load    the same in a fresh $HERMES_HOME and a fresh copy of the project, trusted just
//                before (nothing the framework caches on disk exists yet), BENCH_TRUSTED_COLD_RUNS
//                times (default 5); the trust command's own time is kept too;
//   hook         `hermes hook claude-code` processes with one PreToolUse (a write every guard
//                looks at and lets through): answered in-process (`HERMES_DAEMON=0`) and by a
//                warm `hermes daemon run`, beside `node -e 0`, alternating, BENCH_TRUSTED_RUNS
//                times; and the first call to a daemon just started (it loads the project for
//                that call), once per start, BENCH_TRUSTED_COLD_RUNS starts.
// Only the built package is used, through its public API (the child) and its command line, so the
// benchmark measures the same thing whatever the loader does inside. Run by bench/run.mjs, which
// prints the tables; the samples (ms) go to stdout as one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'hermes.js');
const child = join(root, 'bench', 'trusted-project-child.mjs');
const RUNS = Math.max(1, Number(process.env.BENCH_TRUSTED_RUNS ?? 11));
const COLD_RUNS = Math.max(1, Number(process.env.BENCH_TRUSTED_COLD_RUNS ?? 5));
const TS = 10;
const MJS = 10;
const N = TS + MJS;

// --- the project ----------------------------------------------------------------------------

const pad = (i) => String(i).padStart(2, '0');
const shared = ['vendor', 'dist', 'migrations', '.github', 'fixtures'];

/** The guard's helper module: its rules and the function that judges a path. */
const rulesTs = (i) => `import { normalize, sep } from 'node:path';

export type Verdict = 'allow' | 'deny';

export interface Rule {
  segment: string;
  verdict: Verdict;
  reason: string;
}

export const rules: readonly Rule[] = [
  { segment: 'protected-${pad(i)}', verdict: 'deny', reason: 'is guarded by guard ${pad(i)}' },
  { segment: '${shared[i % shared.length]}-${pad(i)}', verdict: 'deny', reason: 'is generated' },
  { segment: 'scratch-${pad(i)}', verdict: 'allow', reason: 'is scratch space' },
];

/** The first rule that names a folder of \`path\`, the extra ones from config included. */
export function judge(path: string, extra: readonly string[] = []): Rule | undefined {
  const segments = new Set(normalize(path).split(sep));
  const found = rules.find((rule) => segments.has(rule.segment));
  if (found) return found.verdict === 'deny' ? found : undefined;
  const named = extra.find((segment) => segments.has(segment));
  return named ? { segment: named, verdict: 'deny', reason: 'is protected by config' } : undefined;
}
`;

/** A TypeScript guard: with a zod `configSchema` when `zod`, else without config. */
const indexTs = (i, zod) => `import type { InterceptToolCallEvent } from 'hermes-extensions';
import { block, defineExtension } from 'hermes-extensions';
${zod ? "import { z } from 'zod';\n" : ''}import { judge } from './rules.js';
${
  zod
    ? `
const configSchema = z.object({
  extraSegments: z.array(z.string()).default([]),
  tools: z.array(z.enum(['write', 'edit'])).default(['write', 'edit']),
});
`
    : ''
}
export default defineExtension({
  name: 'ts-guard-${pad(i)}',
  description: 'Keeps writes out of the folders of guard ${pad(i)}',${zod ? '\n  configSchema,' : ''}
  setup(hermes) {
    const extra: readonly string[] = ${zod ? 'hermes.config.extraSegments' : '[]'};
    hermes.on(
      'intercept_tool_call',
      (event: InterceptToolCallEvent) => {
        const path = String(event.toolArgs.path ?? '');
        const rule = judge(path, extra);
        return rule ? block(\`ts-guard-${pad(i)}: \${path} \${rule.reason}\`) : undefined;
      },
      { tools: ${zod ? 'hermes.config.tools' : "['write', 'edit']"} },
    );
  },
});
`;

/** The same helper without the types. */
const rulesMjs = (i) =>
  rulesTs(i)
    .replace(/export type Verdict[^\n]*\n\n/, '')
    .replace(/export interface Rule \{[^}]*\}\n\n/, '')
    .replace('export const rules: readonly Rule[]', 'export const rules')
    .replace(
      '(path: string, extra: readonly string[] = []): Rule | undefined',
      '(path, extra = [])',
    );

/** The same guard without the types, named `mjs-guard-NN`. */
const indexMjs = (i, zod) =>
  indexTs(i, zod)
    .replace(/^import type .*\n/m, '')
    .replace("'./rules.js'", "'./rules.mjs'")
    .replace('const extra: readonly string[]', 'const extra')
    .replace('(event: InterceptToolCallEvent)', '(event)')
    .replaceAll('ts-guard-', 'mjs-guard-');

function writeProject(project) {
  mkdirSync(join(project, '.git'), { recursive: true }); // the project root: an empty clone
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'app.ts'), 'export const app = 1;\n');
  const extensions = join(project, '.hermes', 'extensions');
  for (let i = 1; i <= N; i++) {
    const ts = i <= TS;
    const dir = join(extensions, `${ts ? 'ts' : 'mjs'}-guard-${pad(i)}`);
    mkdirSync(dir, { recursive: true });
    const zod = i % 2 === 0;
    writeFileSync(
      join(dir, ts ? 'index.ts' : 'index.mjs'),
      ts ? indexTs(i, zod) : indexMjs(i, zod),
    );
    writeFileSync(join(dir, ts ? 'rules.ts' : 'rules.mjs'), ts ? rulesTs(i) : rulesMjs(i));
  }
}

// --- processes --------------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'htp-'));
const sockets = join(work, 's'); // short: a socket's path must stay under about 100 bytes
mkdirSync(sockets, { mode: 0o700 });
const template = join(work, 'template');
writeProject(template);

const baseEnv = { ...process.env, HERMES_DAEMON_DIR: sockets };
delete baseEnv.HERMES_DAEMON;
delete baseEnv.HERMES_TRUST_PROJECT;
// Against a bare Node start: a bundle NODE_EXTRA_CA_CERTS names is parsed by every Node as it
// starts (BENCHMARKS.md, "The certificates Node loads as it starts").
delete baseEnv.NODE_EXTRA_CA_CERTS;

/** A fresh process, timed from spawn to exit; throws unless it exits 0. */
function run(args, { env = baseEnv, cwd = work, input } = {}) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    env,
    cwd,
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0)
    throw new Error(`${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

let copies = 0;
/** A fresh $HERMES_HOME and copy of the project, trusted; the trust command's time too. */
function freshSetup() {
  const dir = join(work, `c${copies++}`);
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  cpSync(template, project, { recursive: true });
  const env = { ...baseEnv, HERMES_HOME: home };
  const trust = run([bin, 'extensions', 'trust', '--yes', '--cwd', project], { env });
  return { dir, home, project, env, trustMs: trust.ms };
}

/** `hermes extensions list --json`: every project extension enabled, or an error. */
function checkListed({ project, env }) {
  const listed = JSON.parse(
    run([bin, 'extensions', 'list', '--json', '--cwd', project], { env }).stdout,
  );
  const enabled = listed.filter(
    (e) => e.status === 'enabled' && e.source === 'project' && /-guard-/.test(e.name),
  );
  if (enabled.length !== N)
    throw new Error(`the project is not loaded whole: ${JSON.stringify(listed, null, 2)}`);
}

const load = ({ home, project }) => {
  const { ms, stdout } = run([child, home, project, String(N)]);
  return { ...JSON.parse(stdout.trim().split('\n').at(-1)), wallMs: ms };
};

const event = (project, path) =>
  JSON.stringify({
    session_id: 'trusted-project-bench',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(project, path), content: 'export const app = 2;\n' },
  });

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** `hermes daemon run`, resolved once it prints `ready <socket>`. */
function startDaemon(env) {
  const daemon = spawn(process.execPath, [bin, 'daemon', 'run'], {
    env,
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  daemon.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the daemon was not ready within 30 s')),
      30_000,
    );
    daemon.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (/^ready /m.test(stdout)) {
        clearTimeout(timer);
        resolve(daemon);
      }
    });
    daemon.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the daemon exited (${code}) before it was ready: ${stdout}${stderr}`));
    });
  });
}

function stopDaemon(daemon) {
  if (!daemon || daemon.exitCode !== null || daemon.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    daemon.once('exit', () => resolve());
    daemon.kill('SIGTERM');
  });
}

/** Events this environment's daemon has answered (`hermes daemon status --json`). */
function answered(env) {
  const status = JSON.parse(run([bin, 'daemon', 'status', '--json'], { env }).stdout);
  const own = status.find((s) => s.thisEnvironment);
  if (!own) throw new Error(`no daemon of this environment: ${JSON.stringify(status)}`);
  return own.requests;
}

// --- the runs ---------------------------------------------------------------------------------

let daemon;
try {
  const warm = freshSetup();
  checkListed(warm);
  load(warm); // fills the disk caches; unmeasured
  run(['-e', '0']);

  const samples = { node: [], warm: [], cold: [], trustMs: [] };
  for (let r = 0; r < Math.max(RUNS, COLD_RUNS); r++) {
    if (r < RUNS) {
      samples.node.push(run(['-e', '0']).ms);
      samples.warm.push(load(warm));
    }
    if (r < COLD_RUNS) {
      const fresh = freshSetup();
      samples.trustMs.push(fresh.trustMs);
      samples.cold.push(load(fresh));
      rmSync(fresh.dir, { recursive: true, force: true });
    }
  }

  // The hook calls, in the warm project.
  const inProcessEnv = { ...warm.env, HERMES_DAEMON: '0' };
  const hook = (env, path = 'src/app.ts') =>
    run([bin, 'hook', 'claude-code'], { env, cwd: warm.project, input: event(warm.project, path) });
  const expected = hook(inProcessEnv).stdout;
  /** Both kinds of guard refuse their own folder, answered as `env` answers. */
  const checkRefusals = (env, how) => {
    for (const [path, guard] of [
      ['protected-03/a.ts', 'ts-guard-03'],
      ['protected-14/a.ts', 'mjs-guard-14'],
    ]) {
      const answer = hook(env, path).stdout;
      if (!answer.includes('"deny"') || !answer.includes(guard))
        throw new Error(`${how}: ${guard} did not refuse ${path}: ${JSON.stringify(answer)}`);
    }
  };
  checkRefusals(inProcessEnv, 'in-process');
  const viaDaemon = (label) => {
    const result = hook(warm.env);
    if (result.stdout !== expected)
      throw new Error(
        `${label}: the daemon answered ${JSON.stringify(result.stdout)}, in-process ${JSON.stringify(expected)}`,
      );
    return result.ms;
  };

  const hooks = { node: [], inProcess: [], daemon: [], daemonFirst: [] };
  for (let r = 0; r < COLD_RUNS; r++) {
    await stopDaemon(daemon);
    daemon = await startDaemon(warm.env);
    hooks.daemonFirst.push(viaDaemon('first call'));
    await sleep(200);
  }
  for (let i = 0; i < 3; i++) viaDaemon('warm-up');
  const before = answered(warm.env);
  for (let r = 0; r < RUNS; r++) {
    hooks.node.push(run(['-e', '0']).ms);
    hooks.inProcess.push(hook(inProcessEnv).ms);
    hooks.daemon.push(viaDaemon('steady'));
  }
  const after = answered(warm.env);
  if (after - before < RUNS)
    throw new Error(`the daemon answered ${after - before} of the ${RUNS} steady calls`);
  checkRefusals(warm.env, 'through the daemon');
  if (answered(warm.env) - after < 2) throw new Error('the daemon did not answer the refusals');

  process.stdout.write(
    `${JSON.stringify({ ts: TS, mjs: MJS, runs: RUNS, coldRuns: COLD_RUNS, load: samples, hook: hooks })}\n`,
  );
} finally {
  await stopDaemon(daemon);
  rmSync(work, { recursive: true, force: true });
}
