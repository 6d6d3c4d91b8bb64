// The stdio bridge under a host that misbehaves, measured from outside the server process:
//
// - back-pressure: the host opens a turn, then writes BENCH_LIMITS_REQUESTS (200,000)
//   intercept_tool_call requests against workflow-guard and reads none of the answers; the
//   server's resident memory (VmRSS) is sampled before and once it has stopped moving, then the
//   host reads everything and checks that every answer came, in order.
// - one long line: a request line of BENCH_LIMITS_LINE_MB (50) MB, sent once to a server with the
//   default cap (answered -32600) and once to one whose --max-line-bytes lets it through (parsed
//   and answered); the time to the answer and the server's peak memory (VmHWM).
//
// Linux only (reads /proc). `HERMES_BIN=path/to/bin/hermes.js` measures another build of the
// command line, e.g. an older one for a before/after. Prints one JSON line.
//   npm run build && node bench/bridge-limits.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = process.env.HERMES_BIN ?? join(root, 'bin', 'hermes.js');
const REQUESTS = Number(process.env.BENCH_LIMITS_REQUESTS ?? 200_000);
const LINE_MB = Number(process.env.BENCH_LIMITS_LINE_MB ?? 50);

const work = mkdtempSync(join(tmpdir(), 'hermes-bridge-limits-'));
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(
  join(home, 'config.yaml'),
  `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions', 'workflow-guard'))}]\n`,
);

const mb = (kb) => Math.round(kb / 1024);
const memory = (pid, field) =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
const request = (id, method, params) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;

function server(flags = []) {
  const child = spawn(
    process.execPath,
    [bin, 'extensions', 'serve', '--stdio', '--cwd', project, ...flags],
    { env: { ...process.env, HERMES_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  const answers = [];
  let wake = () => {};
  lines.on('line', (line) => {
    answers.push(JSON.parse(line));
    wake();
  });
  const answered = async (count) => {
    while (answers.length < count) await new Promise((resolve) => (wake = resolve));
  };
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, lines, answers, answered, exited };
}

/** Polls until `measure` gives the same value three times, 250 ms apart. */
async function steady(measure) {
  let last = -1;
  let same = 0;
  while (same < 3) {
    await sleep(250);
    const now = measure();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

async function backPressure() {
  const s = server();
  s.child.stdin.write(request(0, 'initialize', {}));
  s.child.stdin.write(request(1, 'turn/start', { session_id: 'bench', turn_id: 't' }));
  await s.answered(2);
  await sleep(500);
  const before = memory(s.child.pid, 'VmRSS');
  s.lines.pause();
  s.child.stdout.pause();
  const args = { path: 'src/app.ts', content: 'x'.repeat(100) };
  for (let id = 2; id < REQUESTS + 2; id++) {
    s.child.stdin.write(
      request(id, 'intercept_tool_call', { turn_id: 't', tool_name: 'write', tool_args: args }),
    );
  }
  const held = await steady(() => memory(s.child.pid, 'VmRSS'));
  const peak = memory(s.child.pid, 'VmHWM');
  const started = performance.now();
  s.lines.resume();
  s.child.stdout.resume();
  await s.answered(REQUESTS + 2);
  const drainMs = performance.now() - started;
  s.child.stdin.end();
  await s.exited;
  const inOrder = s.answers.every((answer, index) => answer.id === index);
  const blocked = s.answers.slice(2).every((answer) => answer.result?.blocked === true);
  return {
    requests: REQUESTS,
    rss_before_mb: mb(before),
    rss_while_host_not_reading_mb: mb(held),
    peak_rss_mb: mb(peak),
    all_answered_in_order: inOrder && blocked,
    ms_to_read_every_answer: Math.round(drainMs),
  };
}

async function longLine(flags, label) {
  const s = server(flags);
  s.child.stdin.write(request(0, 'initialize', {}));
  await s.answered(1);
  const head = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"';
  const pad = 'x'.repeat(LINE_MB * 1024 * 1024 - head.length - 3);
  const started = performance.now();
  s.child.stdin.write(`${head}${pad}"}}\n`);
  s.child.stdin.write(request(2, 'initialize', {}));
  await s.answered(3);
  const ms = performance.now() - started;
  const peak = memory(s.child.pid, 'VmHWM');
  s.child.stdin.end();
  await s.exited;
  return {
    case: label,
    line_mb: LINE_MB,
    answer: s.answers[1].error?.code ?? 'result',
    next_request_answered: s.answers[2].id === 2,
    ms_to_both_answers: Math.round(ms),
    peak_rss_mb: mb(peak),
  };
}

// An older build has no cap to raise: its one long-line case is the line with no cap at all.
const hasCap = spawnSync(process.execPath, [bin, 'extensions', 'serve', '--help'], {
  encoding: 'utf8',
}).stdout.includes('--max-line-bytes');

try {
  const report = {
    bin,
    back_pressure: await backPressure(),
    long_line: hasCap
      ? [
          await longLine([], 'default cap'),
          await longLine(['--max-line-bytes', String(64 * 1024 * 1024)], 'cap raised to 64 MiB'),
        ]
      : [await longLine([], 'no cap (a build without --max-line-bytes)')],
  };
  console.log(JSON.stringify(report));
} finally {
  rmSync(work, { recursive: true, force: true });
}
