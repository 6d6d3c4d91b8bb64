// CLI start-up benchmark: the wall time of `hermes extensions list` over 50 TypeScript extensions
// (jiti cache warm) beside `node -e 0`, each a fresh process, alternating, BENCH_CLI_RUNS times
// (default 11) after one unmeasured round that fills the cache. Run by bench/run.mjs, which
// prints the table; the samples (ms) go to stdout as one JSON line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { N, writeExtensions } from './fifty-extensions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Math.max(1, Number(process.env.BENCH_CLI_RUNS ?? 11));

const work = mkdtempSync(join(tmpdir(), 'hermes-cli-bench-'));
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(project, { recursive: true });
writeExtensions(home);

const env = { ...process.env, HERMES_HOME: home };
// Against a bare Node start: a bundle NODE_EXTRA_CA_CERTS names is parsed by every Node as it
// starts (BENCHMARKS.md, "The certificates Node loads as it starts").
delete env.NODE_EXTRA_CA_CERTS;
const time = (args) => {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    env,
    cwd: project,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited with ${result.status}`);
  return { ms, stdout: result.stdout.toString() };
};
const list = [join(root, 'bin', 'hermes.js'), 'extensions', 'list', '--cwd', project];

try {
  const first = time(list); // fills the jiti cache; unmeasured
  const enabled = first.stdout.split('\n').filter((line) => / enabled /.test(line)).length;
  if (enabled !== N) throw new Error(`expected ${N} enabled extensions, saw ${enabled}`);
  time(['-e', '0']);
  const samples = { list: [], node: [] };
  for (let r = 0; r < RUNS; r++) {
    samples.list.push(time(list).ms);
    samples.node.push(time(['-e', '0']).ms);
  }
  process.stdout.write(`${JSON.stringify({ extensions: N, runs: RUNS, samples })}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
