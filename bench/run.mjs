// `npm run bench`: the dispatch benchmark (bench/dispatch.mjs) in BENCH_ROUNDS fresh processes
// (default 3), then the memory benchmark (bench/memory.mjs), then the cold-start benchmark
// (bench/coldstart.mjs), then the CLI start-up (bench/cli.mjs), then the tables, as markdown.
// then the per-call latency in process, over the stdio bridge and per process (bench/bridge.mjs).
// then a reference-loop turn with and without observers (bench/observers.mjs), then the cost of
// judging one shell command (bench/shell.mjs), then a decision by a policy declared in config
// against the same rule in TypeScript (bench/declared.mjs), then one `hermes hook` call in-process, cold and
// through a warm daemon (bench/hook.mjs), then a shell command in the OS sandbox and the guard's
// decision with the sandbox on and off (bench/sandbox.mjs), then a trusted project's own 10
// TypeScript and 10 `.mjs` extensions: its load, cold and warm, and its hook call in-process and
// through the daemon (bench/trusted-project.mjs), then 20 agent sessions at once through the hook
// from no daemon running (bench/hook-storm.mjs), then a soak of one daemon with runtimes ended on
// purpose (bench/soak.mjs: this run exits 1 when its audit trails lost a line), then one MCP
// `tools/call` through `hermes mcp proxy` against the same call direct, over stdio and over
// Streamable HTTP (bench/mcp.mjs).
// BENCH_ONLY=coldstart (or any comma-separated list of dispatch, memory, coldstart, cli, bridge,
// observers, shell, declared, hook, sandbox, trusted, storm, soak, mcp) runs only those parts.
// Every dispatch figure is a median: mitata's p50 per bench, then the median of that over the
// rounds (ratios and slopes are taken within a round, then their median; the range is min–max).
// Every cold-start figure is the median of its runs, with the 10th–90th percentile in brackets.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const distEntry = join(root, 'dist', 'index.js');
if (!existsSync(distEntry)) {
  console.error('dist/ is missing: run `npm run build` first (`npm run bench` does it for you).');
  process.exit(1);
}
const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }, 0);
if (
  existsSync(join(root, 'src')) &&
  newestSource(join(root, 'src')) > statSync(distEntry).mtimeMs
) {
  console.error('warning: src/ is newer than dist/; these numbers are for the last build.');
}

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const PARTS = [
  'dispatch',
  'memory',
  'coldstart',
  'cli',
  'bridge',
  'observers',
  'shell',
  'declared',
  'hook',
  'sandbox',
  'trusted',
  'storm',
  'soak',
  'mcp',
];
const only = new Set((process.env.BENCH_ONLY ?? PARTS.join(',')).split(',').map((p) => p.trim()));
const unknown = [...only].filter((part) => !PARTS.includes(part));
if (unknown.length > 0 || only.size === 0) {
  console.error(`BENCH_ONLY takes a comma-separated list of ${PARTS.join(', ')}; got ${unknown}`);
  process.exit(1);
}

function runChild(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', join(root, 'bench', script)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with code ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}

const loadBefore = loadavg()[0];
const started = performance.now();
const rounds = [];
for (let r = 1; only.has('dispatch') && r <= ROUNDS; r++) {
  console.error(`dispatch benchmark, round ${r} of ${ROUNDS}…`);
  rounds.push(await runChild('dispatch.mjs'));
}
let memory;
if (only.has('memory')) {
  console.error('memory benchmark…');
  memory = await runChild('memory.mjs');
}
let observers;
if (only.has('observers')) {
  console.error('observer benchmark…');
  observers = await runChild('observers.mjs');
}
let shell;
if (only.has('shell')) {
  console.error('shell analysis benchmark…');
  shell = await runChild('shell.mjs');
}
let declared;
if (only.has('declared')) {
  console.error('declared policies benchmark…');
  declared = await runChild('declared.mjs');
}
let sandboxRun;
if (only.has('sandbox')) {
  console.error('sandbox benchmark…');
  sandboxRun = await runChild('sandbox.mjs');
}
let mcp;
if (only.has('mcp')) {
  console.error('MCP proxy benchmark…');
  mcp = await runChild('mcp.mjs');
}
let bridge;
if (only.has('bridge')) {
  console.error('bridge latency benchmark…');
  bridge = await runChild('bridge.mjs');
}
let cli;
if (only.has('cli')) {
  console.error('CLI start-up benchmark…');
  cli = await runChild('cli.mjs');
}
let hook;
if (only.has('hook')) {
  console.error('hook call benchmark…');
  hook = await runChild('hook.mjs');
}
let coldstart;
if (only.has('coldstart')) {
  console.error('cold-start benchmark…');
  coldstart = await runChild('coldstart.mjs');
}
let trusted;
if (only.has('trusted')) {
  console.error('trusted-project benchmark…');
  trusted = await runChild('trusted-project.mjs');
}
let storm;
if (only.has('storm')) {
  console.error('hook storm benchmark…');
  storm = await runChild('hook-storm.mjs');
}
let soak;
if (only.has('soak')) {
  console.error('daemon soak benchmark…');
  soak = await runChild('soak.mjs');
}
const elapsed = (performance.now() - started) / 1000;

// --- aggregation -----------------------------------------------------------------------------

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
/** A figure computed within each round, summarised over the rounds. */
const agg = (f) => {
  const values = rounds.map((round) => f((name) => round.medians[name]));
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values };
};
const ns = (v) => (v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'));
const x = (v) => `${v.toFixed(2)}×`;
const range = (a, fmt) => (rounds.length > 1 ? ` (${fmt(a.min)}–${fmt(a.max)})` : '');
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
const yes = (ok) => (ok ? 'yes' : '**NO**');
const wins = (a) => `${a.values.filter(Boolean).length}/${a.values.length} rounds`;

const out = [];
const ran = [
  rounds.length > 0 && `${ROUNDS} round(s) of the dispatch benchmark`,
  memory && 'the memory benchmark',
  coldstart && `${coldstart.runs} run(s) of each cold start`,
  cli && `${cli.runs} run(s) of the CLI start-up`,
  hook && `${hook.runs} run(s) of each hook call`,
  trusted &&
    `${trusted.runs} warm and ${trusted.coldRuns} cold run(s) of the trusted-project load and hook calls`,
  bridge && `${bridge.bridge.n} calls over the bridge`,
  mcp && `${mcp.direct.n} MCP tool calls each way`,
  storm && `${storm.rounds} round(s) of each hook storm`,
  soak && `a daemon soak of ${soak.events.toLocaleString('en-US')} events`,
].filter(Boolean);
out.push(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus()[0]?.model ?? rounds[0]?.cpu ?? 'unknown CPU'}, ` +
    `${cpus().length} cores; ${ran.join(', ')}; whole run ${elapsed.toFixed(0)} s; ` +
    `1-minute load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after.`,
  '',
);

if (rounds.length > 0) {
  const { sizes, asyncSizes, bailSizes } = rounds[0];
  out.push(
    '### Dispatch: one `interceptToolCall` of `read`, synchronous pass handlers (median ns)',
    '',
  );
  const ratio = {};
  const rows = sizes.map((n) => {
    const m = (impl) => agg((g) => g(`${impl} ${n}`));
    ratio[n] = agg((g) => g(`runtime ${n}`) / g(`hand-written ${n}`));
    return [
      String(n),
      ns(m('runtime').median),
      ns(m('hand-written').median),
      x(ratio[n].median) + range(ratio[n], x),
      ns(m('hookable').median),
      ns(m('koa-compose').median),
      ns(m('tapable').median),
    ];
  });
  out.push(
    table(
      [
        'handlers',
        'runtime',
        'hand-written',
        'ratio runtime/hand-written',
        'hookable',
        'koa-compose',
        'tapable async waterfall',
      ],
      rows,
    ),
    '',
  );

  const targetRows = [];
  for (const n of sizes) {
    const vsHookable = agg((g) => g(`runtime ${n}`) < g(`hookable ${n}`));
    const vsKoa = agg((g) => g(`runtime ${n}`) < g(`koa-compose ${n}`));
    const hookableRatio = agg((g) => g(`runtime ${n}`) / g(`hookable ${n}`));
    const koaRatio = agg((g) => g(`runtime ${n}`) / g(`koa-compose ${n}`));
    targetRows.push([
      String(n),
      `${yes(ratio[n].median <= 1.25)} (${x(ratio[n].median)})`,
      `${yes(hookableRatio.median < 1)} (${x(hookableRatio.median)}, faster in ${wins(vsHookable)})`,
      n >= 10
        ? `${yes(koaRatio.median < 1)} (${x(koaRatio.median)}, faster in ${wins(vsKoa)})`
        : `not a target (${x(koaRatio.median)})`,
    ]);
  }
  out.push(
    'Targets (ratios are runtime ÷ the other, median over rounds):',
    '',
    table(
      [
        'handlers',
        'within 1.25× of hand-written',
        'faster than hookable',
        'faster than koa-compose (from 10 up)',
      ],
      targetRows,
    ),
    '',
  );

  // Async: each handler returns Promise.resolve(); the outcome is awaited.
  const [a1, a10] = asyncSizes;
  const steps = a10 - a1;
  const slope = (prefix) => agg((g) => (g(`${prefix} ${a10}`) - g(`${prefix} ${a1}`)) / steps);
  const syncSlope = agg((g) => (g(`runtime ${a10}`) - g(`runtime ${a1}`)) / steps);
  const asyncImpls = [
    ['runtime (default timeoutMs 5000)', 'async runtime'],
    ['runtime (timeoutMs: Infinity)', 'async runtime-no-timeout'],
    ['naive `for` loop, one `await` per handler', 'async naive-await'],
  ];
  const naiveSlope = slope('async naive-await');
  const asyncRows = asyncImpls.map(([label, prefix]) => {
    const s = slope(prefix);
    const extra = agg(
      (g) =>
        (g(`${prefix} ${a10}`) - g(`${prefix} ${a1}`)) / steps -
        (g(`runtime ${a10}`) - g(`runtime ${a1}`)) / steps,
    );
    const isRuntime = prefix !== 'async naive-await';
    return [
      label,
      ...asyncSizes.map((n) => ns(agg((g) => g(`${prefix} ${n}`)).median)),
      ns(s.median) + range(s, ns),
      isRuntime ? `${ns(extra.median)} (${x(extra.median / naiveSlope.median)} an await)` : '—',
    ];
  });
  out.push(
    '### Async handlers (each returns `Promise.resolve()`; median ns)',
    '',
    table(
      [
        '',
        ...asyncSizes.map((n) => `${n} handler${n === 1 ? '' : 's'}`),
        `per async handler (slope ${a1}→${a10})`,
        'cost over a sync handler',
      ],
      asyncRows,
    ),
    '',
    `One \`await\` (the naive loop's slope): ${ns(naiveSlope.median)} ns. A sync pass handler in the ` +
      `runtime costs ${ns(syncSlope.median)} ns (slope of the sync table from ${a1} to ${a10}).`,
    '',
  );
  const defaultExtra = agg(
    (g) =>
      (g(`async runtime ${a10}`) - g(`async runtime ${a1}`)) / steps -
      (g(`runtime ${a10}`) - g(`runtime ${a1}`)) / steps,
  );
  out.push(
    `Target "an async handler costs about one await": ${yes(
      defaultExtra.median <= 1.5 * naiveSlope.median,
    )} with the default timeoutMs (${x(defaultExtra.median / naiveSlope.median)} an await; ` +
      'taken as holding up to 1.5×).',
    '',
  );

  // Bail: the first handler blocks.
  const bailRows = bailSizes.map((n) => [
    String(n),
    ns(agg((g) => g(`bail runtime ${n}`)).median),
    ns(agg((g) => g(`bail hand-written ${n}`)).median),
  ]);
  const [b1, bN] = [bailSizes[0], bailSizes.at(-1)];
  const flat = agg((g) => g(`bail runtime ${bN}`) / g(`bail runtime ${b1}`));
  const flatHand = agg((g) => g(`bail hand-written ${bN}`) / g(`bail hand-written ${b1}`));
  const full = agg((g) => g(`runtime ${bN}`));
  out.push(
    '### Bail: the first handler blocks (median ns)',
    '',
    table(['handlers registered', 'runtime', 'hand-written'], bailRows),
    '',
    `With ${bN} handlers registered ÷ with ${b1}: runtime ${x(flat.median)}, hand-written ` +
      `${x(flatHand.median)} (whose cost cannot depend on handlers that never run: the noise) — ` +
      `${flat.median <= 1.5 ? 'flat' : '**grows with the handlers that never run**'}. ` +
      `A full ${bN}-handler dispatch costs ${ns(full.median)} ns.`,
    '',
  );

  // `when`: each handler's pattern is matched before it runs; handlers without one pay nothing.
  const w = rounds[0].whenSize;
  if (w !== undefined) {
    const perMatch = agg((g) => (g(`when runtime ${w}`) - g(`runtime ${w}`)) / w);
    out.push(
      `### \`when\`: ${w} handlers whose pattern (a tool name union and a path prefix) matches`,
      '',
      `${ns(agg((g) => g(`when runtime ${w}`)).median)} ns against ${ns(agg((g) => g(`runtime ${w}`)).median)} ns without patterns: ` +
        `${ns(perMatch.median)} ns per match (ts-pattern's isMatching). Handlers without \`when\` ` +
        'are the rows above.',
      '',
    );
  }

  // A writer's call: the protected-ground rule places its path on the file system first.
  const writeSizes = rounds[0].writeSizes ?? [];
  if (writeSizes.length > 0) {
    out.push(
      "### A writer's call: the same call as `write`, the protected-ground rule before any handler (median ns)",
      '',
      table(
        ['handlers', '`write`', '`read`', 'the rule'],
        writeSizes.map((n) => {
          const rule = agg((g) => g(`write runtime ${n}`) - g(`runtime ${n}`));
          return [
            String(n),
            ns(agg((g) => g(`write runtime ${n}`)).median),
            ns(agg((g) => g(`runtime ${n}`)).median),
            ns(rule.median) + range(rule, ns),
          ];
        }),
      ),
      '',
    );
  }
}

// Memory.
if (memory) {
  const first = memory.samples[0];
  const last = memory.samples.at(-1);
  const growth = last.heapUsed - first.heapUsed;
  const perTurn = growth / (last.turns - first.turns);
  const mb = (b) => (b / 1024 / 1024).toFixed(2);
  out.push(
    `### Memory: ${memory.turns.toLocaleString('en-US')} turns, 1,000 sessions, state written every turn`,
    '',
    table(
      ['turns', 'heapUsed after gc (MB)'],
      memory.samples.map((s) => [s.turns.toLocaleString('en-US'), mb(s.heapUsed)]),
    ),
    '',
    `Growth from the first sample to the last: ${growth >= 0 ? '+' : ''}${(growth / 1024).toFixed(0)} KB ` +
      `(${perTurn.toFixed(3)} bytes per turn) — ${
        perTurn < 1 ? 'the heap does not grow' : '**the heap grows**'
      }. ${memory.turns.toLocaleString('en-US')} turns took ${memory.seconds.toFixed(1)} s ` +
      `(${((memory.seconds * 1e6) / memory.turns).toFixed(2)} µs per turn).`,
    '',
  );
}

// Cold start: each run's figures come from one process; a ratio is taken within a round
// (the two processes ran close together), then summarised over the rounds.
if (coldstart) {
  const { sizes: csSizes, runs: csRuns, samples } = coldstart;
  const quantile = (values, q) => {
    const s = [...values].sort((a, b) => a - b);
    const i = (s.length - 1) * q;
    const lo = Math.floor(i);
    return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
  };
  /** A figure computed within each run of the cold-start rounds: median, p10 and p90. */
  const perRun = (f) => {
    const values = Array.from({ length: csRuns }, (_, r) => f((name) => samples[name][r]));
    return { median: median(values), p10: quantile(values, 0.1), p90: quantile(values, 0.9) };
  };
  const ms = (v) => (v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'));
  const spread = (a, fmt = ms) => `${fmt(a.median)} (${fmt(a.p10)}–${fmt(a.p90)})`;
  const kinds = [
    ['native', 'native `import()` of `.mjs`'],
    ['mjs', '`loadRuntime`, `.mjs`'],
    ['ts-warm', '`loadRuntime`, `.ts`, warm cache'],
    ['ts-cold', '`loadRuntime`, `.ts`, cold cache'],
  ];
  const figureTable = (metric) =>
    table(
      ['extensions', ...kinds.map(([, label]) => label)],
      csSizes.map((n) => [
        String(n),
        ...kinds.map(([kind]) => spread(perRun((s) => s(`${kind} ${n}`)[metric]))),
      ]),
    );
  const [c1, cN] = [csSizes[0], csSizes.at(-1)];
  const slopeRow = [
    `per extension (slope ${c1}→${cN})`,
    ...kinds.map(([kind]) =>
      spread(
        perRun((s) => (s(`${kind} ${cN}`).loadMs - s(`${kind} ${c1}`).loadMs) / (cN - c1)),
        (v) => v.toFixed(2),
      ),
    ),
  ];
  const withFramework = csSizes.flatMap((n) => kinds.map(([kind]) => `${kind} ${n}`));
  const allRuns = (metric) => {
    const values = withFramework.flatMap((name) => samples[name].map((sample) => sample[metric]));
    return { median: median(values), p10: quantile(values, 0.1), p90: quantile(values, 0.9) };
  };
  const ratioRows = csSizes.map((n) => {
    const over = (kind, metric) =>
      spread(
        perRun((s) => s(`${kind} ${n}`)[metric] / s(`native ${n}`)[metric]),
        x,
      );
    return [
      String(n),
      over('ts-warm', 'totalMs'),
      over('ts-warm', 'loadMs'),
      over('mjs', 'loadMs'),
      over('ts-cold', 'loadMs'),
      over('ts-warm', 'wallMs'),
    ];
  });
  const target = perRun((s) => s(`ts-warm ${cN}`).totalMs / s(`native ${cN}`).totalMs);
  const targetAlone = perRun((s) => s(`ts-warm ${cN}`).loadMs / s(`native ${cN}`).loadMs);
  out.push(
    `### Cold start: a fresh process loads N extensions (median ms of ${csRuns} runs, p10–p90)`,
    '',
    "In-process, from just before `import('hermes-extensions')` to loaded (the native column " +
      'includes the framework import too):',
    '',
    figureTable('totalMs'),
    '',
    'Loading alone, after the framework import (native: the N `import()`s):',
    '',
    table(
      ['extensions', ...kinds.map(([, label]) => label)],
      [
        ...csSizes.map((n) => [
          String(n),
          ...kinds.map(([kind]) => spread(perRun((s) => s(`${kind} ${n}`).loadMs))),
        ]),
        slopeRow,
      ],
    ),
    '',
    'Whole process, spawn to exit (wall ms):',
    '',
    figureTable('wallMs'),
    '',
    `The framework import (\`import('hermes-extensions')\`, zod with it) takes ` +
      `${spread(allRuns('frameworkMs'))} ms over every run; node itself starts the script after ` +
      `${spread(allRuns('bootMs'))} ms, and a process that imports nothing lasts ` +
      `${spread(perRun((s) => s('empty').wallMs))} ms from spawn to exit.`,
    '',
    'Ratios to native `import()` of the same `.mjs` files (within a round, median over rounds):',
    '',
    table(
      [
        'extensions',
        '`.ts` warm, in-process incl. framework import',
        '`.ts` warm, loading alone',
        '`loadRuntime` `.mjs`, loading alone',
        '`.ts` cold, loading alone',
        '`.ts` warm, whole process',
      ],
      ratioRows,
    ),
    '',
    `Target "warm-cache \`loadRuntime\` of ${cN} TypeScript extensions within 3× of native ` +
      `\`import()\` of the same ${cN} as \`.mjs\`": ${yes(target.median <= 3)} — in-process ` +
      `time including the framework import, ${x(target.median)} (${x(target.p10)}–${x(target.p90)}); ` +
      `loading alone, ${x(targetAlone.median)} (${x(targetAlone.p10)}–${x(targetAlone.p90)}).`,
  );
}

if (cli) {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const list = median(cli.samples.list);
  const node = median(cli.samples.node);
  const ratios = cli.samples.list.map((ms, i) => ms / cli.samples.node[i]);
  const ratio = median(ratios);
  out.push(
    '',
    `### CLI start-up: \`hermes extensions list\` with ${cli.extensions} TypeScript extensions, warm cache (median wall ms of ${cli.runs} runs)`,
    '',
    '| `node -e 0` | `hermes extensions list` | ratio (within a run, median) |',
    '|---:|---:|---:|',
    `| ${node.toFixed(0)} | ${list.toFixed(0)} | ${ratio.toFixed(2)}× |`,
    '',
    `Target "within 3× of bare Node start-up": ${ratio <= 3 ? 'yes' : '**NO**'} (${ratio.toFixed(2)}×).`,
  );
}

if (hook) {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const {
    node,
    inProcess,
    cold,
    steady,
    installed,
    inline,
    nodeOnly,
    beforeSteady,
    beforeInline,
    answer,
    nodeCertificates,
    installedCertificates,
  } = hook.samples;
  const over = (samples) => median(samples.map((ms, i) => ms / node[i]));
  const steadyRatio = over(steady);
  out.push(
    '',
    `### Hook call: \`hermes hook claude-code\`, one PreToolUse, ${hook.extensions} TypeScript extensions plus workflow-guard and module-router (median wall ms of ${hook.runs} runs)`,
    '',
    `The warm daemon: ${hook.daemon}.`,
    '',
    '| | ms | ratio to `node -e 0` (within a run, median) |',
    '|---|---:|---:|',
    `| \`node -e 0\` | ${median(node).toFixed(0)} | 1.00× |`,
    `| in-process (\`HERMES_DAEMON=0\`) | ${median(inProcess).toFixed(0)} | ${over(inProcess).toFixed(2)}× |`,
    `| cold: no daemon running (answers in-process, starts one) | ${median(cold).toFixed(0)} | ${over(cold).toFixed(2)}× |`,
    `| steady: a warm daemon answers | ${median(steady).toFixed(0)} | ${steadyRatio.toFixed(2)}× |`,
    `| installed: the short line \`hook install claude-code\` writes, through \`sh -c\`, a warm daemon | ${median(installed).toFixed(0)} | ${over(installed).toFixed(2)}× |`,
    ...(nodeOnly === undefined
      ? []
      : [
          `| the same program inline, the Node client only (no Perl hook client beside the package) | ${median(nodeOnly).toFixed(0)} | ${over(nodeOnly).toFixed(2)}× |`,
        ]),
    ...(inline === undefined
      ? []
      : [
          `| the same program inline in the command line (as the project form carries it; the user form here), a warm daemon | ${median(inline).toFixed(0)} | ${over(inline).toFixed(2)}× |`,
        ]),
    ...(beforeSteady === undefined
      ? []
      : [
          `| before (\`BENCH_HOOK_BEFORE\`, ${hook.before}): steady | ${median(beforeSteady).toFixed(0)} | ${over(beforeSteady).toFixed(2)}× |`,
          `| before: its program inline, a warm daemon | ${median(beforeInline).toFixed(0)} | ${over(beforeInline).toFixed(2)}× |`,
        ]),
    ...(nodeCertificates === undefined
      ? []
      : [
          `| \`node -e 0\` with the environment's \`NODE_EXTRA_CA_CERTS\` (${hook.certificates}) | ${median(nodeCertificates).toFixed(0)} | ${over(nodeCertificates).toFixed(2)}× |`,
          `| installed, with it: its own warm daemon (the hook's Node does not load it) | ${median(installedCertificates).toFixed(0)} | ${over(installedCertificates).toFixed(2)}× (${median(installedCertificates.map((ms, i) => ms / nodeCertificates[i])).toFixed(2)}× \`node -e 0\` with it) |`,
        ]),
    '',
    `Every row but the two with \`NODE_EXTRA_CA_CERTS\` runs without it: a bare Node start is the yardstick.`,
    '',
    `Target "the installed command on a warm daemon within 1.15× of \`node -e 0\`": ${over(installed) <= 1.15 ? 'yes' : '**NO**'} (${over(installed).toFixed(2)}×).`,
    `Target "a steady-state hook call within 1.2× of \`node -e 0\`": ${steadyRatio <= 1.2 ? 'yes' : '**NO**'} (${steadyRatio.toFixed(2)}×).`,
  );
  if (answer !== undefined) {
    const sorted = [...answer].sort((a, b) => a - b);
    const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
    out.push(
      '',
      `The daemon's answer alone (the same event, ${answer.length} requests over its socket from one running process, as the client sends them): median ${at(50).toFixed(1)} ms, p90 ${at(90).toFixed(1)} ms, against ${median(node).toFixed(0)} ms for \`node -e 0\`.`,
    );
  }
  if (beforeSteady !== undefined) {
    // Within each round, this build against the other: steadier than two ratios to `node -e 0`.
    const paired = (now, then) => median(now.map((ms, i) => ms / then[i])).toFixed(2);
    out.push(
      '',
      `This build ÷ the one before, within each round (median): \`hermes hook\` ${paired(steady, beforeSteady)}×, the program inline ${paired(inline, beforeInline)}×.`,
    );
  }
}

if (storm) out.push('', ...stormTables(storm));
if (soak) out.push('', ...soakTables(soak));

if (bridge) {
  const ms = (value) => (value < 1 ? value.toFixed(3) : value.toFixed(1));
  const row = (name, sample) => `| ${name} | ${ms(sample.p50)} | ${ms(sample.p99)} | ${sample.n} |`;
  const speedup = bridge.perProcess.p50 / bridge.bridge.p50;
  const steadyP99 = Math.max(bridge.bridge.p99, bridge.python?.steady.p99 ?? 0);
  const flags =
    bridge.serverFlags.length > 0 ? ` (server run with \`${bridge.serverFlags.join(' ')}\`)` : '';
  out.push(
    '',
    `### Per-call latency of \`intercept_tool_call\` with workflow-guard loaded (ms)${flags}`,
    '',
    '| | p50 | p99 | calls |',
    '|---|---:|---:|---:|',
    row('in process', bridge.inProcess),
    row(
      `stdio bridge, Node client, after ${bridge.warmup.toLocaleString('en')} calls`,
      bridge.bridge,
    ),
    ...(bridge.python
      ? [
          row(
            `stdio bridge, Python client, after ${bridge.warmup.toLocaleString('en')} calls`,
            bridge.python.steady,
          ),
        ]
      : []),
    row('stdio bridge, Node client, first calls after start', bridge.bridgeFirst),
    ...(bridge.python
      ? [row('stdio bridge, Python client, first calls after start', bridge.python.first)]
      : []),
    row('one process per call', bridge.perProcess),
    '',
    `Targets: the bridge at least 100× faster than a process per call: ${speedup >= 100 ? 'yes' : '**NO**'} ` +
      `(${speedup.toFixed(0)}×, p50 against p50); its p99 under 1 ms once running: ${steadyP99 < 1 ? 'yes' : '**NO**'} ` +
      `(${ms(steadyP99)} ms, the worse client); in the first calls after start: ` +
      `${Math.max(bridge.bridgeFirst.p99, bridge.python?.first.p99 ?? 0) < 1 ? 'yes' : 'no'}.`,
  );
}

if (mcp) {
  const ms = (value) => value.toFixed(2);
  const row = (name, sample) => `| ${name} | ${ms(sample.p50)} | ${ms(sample.p99)} | ${sample.n} |`;
  const ratio = mcp.proxied.p50 / mcp.direct.p50;
  const addedUs = (mcp.proxied.p50 - mcp.direct.p50) * 1000;
  out.push(
    '',
    `### One MCP \`tools/call\` (\`read_text_file\`, the reference filesystem server), direct and through \`hermes mcp proxy\` with workflow-guard and secrets-guard, after ${mcp.warmup.toLocaleString('en')} calls (ms)`,
    '',
    '| | p50 | p99 | calls |',
    '|---|---:|---:|---:|',
    row('direct (SDK client to the server over stdio)', mcp.direct),
    row('through the proxy', mcp.proxied),
    '',
    `Through the proxy: ${ratio.toFixed(2)}× the direct call, ${addedUs.toFixed(0)} µs added (p50 against p50).`,
  );
  const { http } = mcp;
  out.push(
    '',
    `### The same over Streamable HTTP (\`read_text_file\`, a server written with the SDK), direct and through \`hermes mcp proxy --http --url\`, after ${mcp.warmup.toLocaleString('en')} calls (ms)`,
    '',
    '| | p50 | p99 | calls |',
    '|---|---:|---:|---:|',
    row('direct (SDK client to the server over HTTP)', http.direct),
    row('through the proxy (HTTP both sides)', http.proxied),
    '',
    `Through the proxy: ${(http.proxied.p50 / http.direct.p50).toFixed(2)}× the direct call, ${((http.proxied.p50 - http.direct.p50) * 1000).toFixed(0)} µs added (p50 against p50).`,
  );
}

if (observers) {
  const rows = Object.entries(observers.medians).map(
    ([name, ns]) => `| ${name} | ${(ns / 1000).toFixed(1)} |`,
  );
  out.push(
    '',
    '### One reference-loop turn (2 model requests, 2 tool calls, 1 blocked): observers (median µs)',
    '',
    '| | µs per turn |',
    '|---|---:|',
    ...rows,
  );
}

if (shell) {
  out.push(
    '',
    '### Judging one shell command (median µs; workflow-guard calls analyzeShell, module-router parseShell)',
    '',
    '| | µs per command |',
    '|---|---:|',
    ...Object.entries(shell.medians).map(([name, ns]) => `| ${name} | ${(ns / 1000).toFixed(1)} |`),
    '',
    `Loading the parser (unbash) once: ${shell.parserLoadMs.toFixed(1)} ms.`,
  );
}

if (declared) {
  out.push(
    '',
    '### One decision by a policy declared in config (median µs per tool call, in process)',
    '',
    '| | µs per call | × the rule in TypeScript |',
    '|---|---:|---:|',
    ...Object.entries(declared.medians).map(
      ([name, ns]) =>
        `| ${name} | ${(ns / 1000).toFixed(1)} | ${declared.ratios[name].toFixed(1)} |`,
    ),
  );
}

if (sandboxRun) {
  const ms = (value) => `${value.toFixed(0)} ms`;
  const us = (value) => `${value.toFixed(0)} µs`;
  out.push(
    '',
    '### One shell command in the OS sandbox (median of its runs)',
    '',
    sandboxRun.available
      ? [
          '| run as the agent runs it (`bash -c`) | median | p99 | added over bare |',
          '|---|---:|---:|---:|',
          ...Object.entries(sandboxRun.runs).map(
            ([name, value]) =>
              `| ${name} | ${ms(value)} | ${ms(sandboxRun.p99[name] ?? value)} | ${ms(value - (sandboxRun.runs['bare (`bash -c true`)'] ?? 0))} |`,
          ),
          '',
          `The library's one-time start (its network filter): ${ms(sandboxRun.initMs)}.`,
        ].join('\n')
      : 'The sandbox is not available on this machine: no sandboxed runs.',
    '',
    "| workflow-guard's decision for one shell call | µs |",
    '|---|---:|',
    ...Object.entries(sandboxRun.decisions).map(([name, value]) => `| ${name} | ${us(value)} |`),
  );
}

if (trusted) {
  const { load, hook: calls, runs, coldRuns } = trusted;
  const quantile = (values, q) => {
    const s = [...values].sort((a, b) => a - b);
    const i = (s.length - 1) * q;
    const lo = Math.floor(i);
    return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
  };
  const ms = (v) => (v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'));
  /** Median (p10–p90) of values; ratios are taken pair by pair (the two ran one after the other). */
  const spread = (values, fmt = ms) =>
    values.length > 2
      ? `${fmt(median(values))} (${fmt(quantile(values, 0.1))}–${fmt(quantile(values, 0.9))})`
      : fmt(median(values));
  const pairs = (a, b) => a.slice(0, Math.min(a.length, b.length)).map((v, i) => v / b[i]);
  const field = (samples, key) => samples.map((sample) => sample[key]);
  const { warm, cold } = load;
  const wallOverNode = (samples) => spread(pairs(field(samples, 'wallMs'), load.node), x);
  out.push(
    '',
    `### Trusted project: its own ${trusted.ts} TypeScript and ${trusted.mjs} \`.mjs\` extensions (median ms, p10–p90)`,
    '',
    `A fresh \`node\` process imports the framework, runs \`loadRuntime({ cwd, home })\` and \`close()\`, then loads the project again in the same process. Warm: ${runs} runs with the disk caches filled by an earlier process; cold: ${coldRuns} runs, each the first load after \`hermes extensions trust --yes\` in a fresh \`$HERMES_HOME\` and a fresh copy of the project.`,
    '',
    table(
      [
        '',
        'framework import',
        '`loadRuntime`',
        'import + load + close',
        'second `loadRuntime`, same process',
        'whole process, spawn to exit',
        'whole process ÷ `node -e 0`',
      ],
      [
        ['warm', warm],
        ['cold (first load after trust)', cold],
      ].map(([label, samples]) => [
        label,
        spread(field(samples, 'frameworkMs')),
        spread(field(samples, 'loadMs')),
        spread(field(samples, 'totalMs')),
        spread(field(samples, 'secondLoadMs')),
        spread(field(samples, 'wallMs')),
        wallOverNode(samples),
      ]),
    ),
    '',
    `\`node -e 0\`: ${spread(load.node)} ms. \`loadRuntime\` cold ÷ warm: ` +
      `${spread(pairs(field(cold, 'loadMs'), field(warm, 'loadMs')), x)}; the second load ÷ the ` +
      `first, warm: ${spread(pairs(field(warm, 'secondLoadMs'), field(warm, 'loadMs')), x)}. ` +
      `\`hermes extensions trust --yes\` itself: ${spread(load.trustMs)} ms.`,
    '',
    table(
      ['`hermes hook claude-code`, one PreToolUse (every guard passes it)', 'ms', '÷ `node -e 0`'],
      [
        ['`node -e 0`', spread(calls.node), '1.00×'],
        [
          'in-process (`HERMES_DAEMON=0`)',
          spread(calls.inProcess),
          spread(pairs(calls.inProcess, calls.node), x),
        ],
        ['a warm daemon answers', spread(calls.daemon), spread(pairs(calls.daemon, calls.node), x)],
        [
          `first call to a daemon just started (${calls.daemonFirst.length} starts)`,
          spread(calls.daemonFirst),
          '—',
        ],
      ],
    ),
    '',
    `Through the warm daemon ÷ in-process: ${spread(pairs(calls.daemon, calls.inProcess), x)}.`,
  );
}

console.log(out.join('\n').trimEnd());
// Lines lost from an audit trail are a failure of the run, not a figure to read past.
if (soak && soak.audit.lines !== soak.audit.decided) {
  console.error(
    `daemon soak: ${soak.audit.lines} audit lines written for ${soak.audit.decided} calls decided`,
  );
  process.exitCode = 1;
}

/**
 * The daemon soak (bench/soak.mjs): what became of the events, the audit lines against the
 * decisions, what was left behind, and the daemon's resources over the run.
 */
function soakTables(soak) {
  const { outcomes, faultOutcomes, audit } = soak;
  const mb = (v) => (v === null ? '—' : v.toFixed(0));
  const n = (v) => (v === null ? '—' : String(v));
  const lost = audit.perProject.filter((p) => p.lines !== p.decided);
  const faults = faultOutcomes.decided + faultOutcomes.refused + faultOutcomes.notStarted;
  return [
    `### Daemon soak: one daemon, ${soak.events.toLocaleString('en-US')} PreToolUse events over ${soak.projects} projects and ${soak.envs} hook environments, ${faults} runtimes ended on purpose`,
    '',
    `${soak.atOnce} sessions of ${soak.session} events at once, each sending its next event once the last is answered, over the daemon's socket as the hook client sends it; every ${soak.faultEvery}th event ends its runtime (a loop that never yields, a heap filled past 192 MB, alternately); hook deadline ${soak.deadlineMs / 1000} s; ${soak.seconds.toFixed(0)} s in all.`,
    '',
    table(
      [
        'events',
        'decided by the extensions',
        'refused by the framework',
        'not started (left to the client)',
      ],
      [
        ['all', outcomes.decided, outcomes.refused, outcomes.notStarted],
        [
          'marked to end their runtime',
          faultOutcomes.decided,
          faultOutcomes.refused,
          faultOutcomes.notStarted,
        ],
      ],
    ),
    '',
    `Audit lines written: ${audit.lines} for ${audit.decided} calls decided — ${yes(audit.lines === audit.decided)}${
      lost.length > 0
        ? ` (short in ${lost.length} of ${audit.perProject.length} projects: ${lost.map((p) => `${p.project} ${p.lines}/${p.decided}`).join(', ')})`
        : ''
    }. Lock files left: ${soak.locksLeft.length === 0 ? 'none' : `**${soak.locksLeft.length}** (${soak.locksLeft.slice(0, 5).join(', ')}${soak.locksLeft.length > 5 ? ', …' : ''})`}. Calls sent to a fresh runtime after a stuck one did not take them: ${soak.rerouted}; runtimes found stuck and their place given: ${soak.stuckFound}. Daemon exit code after \`stop\`: ${soak.daemonExit}.`,
    ...(Object.keys(soak.refusals).length > 0
      ? [
          '',
          table(
            ['why the framework refused (numbers as N)', 'calls'],
            Object.entries(soak.refusals)
              .sort((a, b) => b[1] - a[1])
              .map(([why, calls]) => [why.replace(/\|/g, '\\|'), calls]),
          ),
        ]
      : []),
    '',
    table(
      [
        'events answered',
        's',
        'daemon RSS (MB)',
        'open fds',
        'threads',
        'runtimes',
        'files under the home and .hermes',
      ],
      soak.samples.map((s) => [
        s.done,
        s.seconds.toFixed(0),
        mb(s.rssMb),
        n(s.fds),
        n(s.threads),
        n(s.runtimes),
        n(s.files),
      ]),
    ),
    ...(soak.memory ? ['', ...memoryTable(soak.memory, mb)] : []),
  ];
}

/**
 * What a runtime costs (bench/soak.mjs `warmCosts`): the daemon's RSS at rest, with each warm
 * runtime added, and once they were let go for idleness; beside the targets of issue 41.
 */
function memoryTable(memory, mb) {
  const { rest, warm, letGo, perRuntimeMb, idleMs } = memory;
  const last = warm.at(-1);
  return [
    `What a runtime costs (a second daemon, no faults, one session in each project in turn; runtimes let go after ${idleMs / 1000} s idle):`,
    '',
    table(
      ['daemon', 'runtimes', 'RSS (MB)'],
      [
        ['at rest (no event yet)', rest.runtimes, mb(rest.rssMb)],
        ...warm.map((w, i) => [`${i + 1} project(s) warm`, w.runtimes, mb(w.rssMb)]),
        ['after the idle let-go', letGo.runtimes, mb(letGo.rssMb)],
      ],
    ),
    '',
    `Per warm runtime past the first (which also brings the thread kept started ahead): ${perRuntimeMb === null ? '—' : perRuntimeMb.toFixed(1)} MB (target ≤ 25). With ${last.runtimes} runtimes: ${mb(last.rssMb)} MB (target ≤ 250). At rest: ${mb(rest.rssMb)} MB, after the idle let-go ${mb(letGo.rssMb)} MB (target ≤ 100).`,
  ];
}

/**
 * The hook storm (bench/hook-storm.mjs): per event, each session's first prompt, and overall, p50
 * and p99 of every call of every round of a mode — the hook installed with SessionStart (`hook`)
 * and without it (`before`: the first prompt starts the daemon) — beside `node -e 0`'s in the same
 * rounds, and their ratios.
 */
function stormTables({ sessions, events, rounds, thinkMs, guards, results }) {
  const pct = (values, p) => {
    const s = [...values].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.max(0, Math.ceil((s.length * p) / 100) - 1))];
  };
  const loads = results.map((r) => r.load.toFixed(1)).join(', ');
  const lines = [
    `### Hook storm: ${sessions} sessions at once through \`hermes hook claude-code\`, ${events} events each, from no daemon running (ms, every call of ${rounds} round(s))`,
    '',
    'Each storm starts with no daemon (a new socket folder). `storm`: every session sends its next event as soon as the last is answered; `paced`: ' +
      `${thinkMs} ms before each prompt, tool batch and stop (a person typing, a model replying). \`hook\`: the stream as Claude Code sends it, \`SessionStart\` first (the daemon loads the session's runtime meanwhile); \`before\`: the same stream without \`SessionStart\` (a hook installed without it: the first prompt starts the daemon); \`installed\`: the stream of \`hook\` through the program \`hook install\` writes (inline, \`sh -c\`), whose Perl hook client asks the warm daemon before Node starts. The \`node -e 0\` columns are the same storm with \`node -e 0\` in place of each hook call, in the same round. ${guards === 'path' ? 'The guards are given by the path of their TypeScript sources (`BENCH_STORM_GUARDS=path`: loaded through jiti, as a folder of your own is)' : 'The guards are named as the README names them (`hermes-extensions/workflow-guard`, `hermes-extensions/module-router`; `BENCH_STORM_GUARDS=path` gives them by the path of their TypeScript sources)'}. 1-minute load average after each round: ${loads}.`,
  ];
  for (const mode of [...new Set(results.map((r) => r.mode))]) {
    const of = results.filter((r) => r.mode === mode);
    const names = Object.keys(of[0].hook);
    const all = (side, name) =>
      of.flatMap((r) =>
        name === 'first'
          ? r[`${side}First`]
          : name
            ? (r[side][name] ?? [])
            : Object.values(r[side]).flat(),
      );
    const row = (label, name) => {
      const hook = all('hook', name);
      const before = all('before', name);
      const installed = of[0].installed === undefined ? [] : all('installed', name);
      const node = all('node', name);
      const ratio = (values) => (values.length === 0 ? '—' : x(pct(values, 99) / pct(node, 99)));
      const ms = (values, p) => (values.length === 0 ? '—' : pct(values, p).toFixed(0));
      return [
        label,
        hook.length,
        pct(node, 50).toFixed(0),
        pct(node, 99).toFixed(0),
        ms(before, 99),
        pct(hook, 50).toFixed(0),
        pct(hook, 99).toFixed(0),
        ms(installed, 50),
        ms(installed, 99),
        ratio(before),
        x(pct(hook, 50) / pct(node, 50)),
        ratio(hook),
        ratio(installed),
      ];
    };
    const wrong = of.reduce((n, r) => n + r.wrong.length, 0);
    const daemons = of
      .map(
        (r) =>
          `${r.beforeStarted} before, ${r.started} with${r.installedStarted === undefined ? '' : `, ${r.installedStarted} installed`}`,
      )
      .join('; ');
    const first = row('first prompt', 'first');
    const overall = row('every event', undefined);
    // The targets are the agent's: what it runs, the installed command, where the storm ran it.
    const judged = of[0].installed === undefined ? 'hook' : 'installed';
    const at = judged === 'hook' ? 11 : 12;
    lines.push(
      '',
      `#### ${mode}`,
      '',
      table(
        [
          'event',
          'calls',
          'node p50',
          'node p99',
          'before p99',
          'hook p50',
          'hook p99',
          'installed p50',
          'installed p99',
          'before p99 ÷ node',
          'hook p50 ÷ node',
          'hook p99 ÷ node',
          'installed p99 ÷ node',
        ],
        [...names.map((name) => row(`\`${name}\``, name)), first, overall],
      ),
      '',
      `Wrong decisions: ${wrong === 0 ? 'none' : `**${wrong}**`} (every answer checked against the stream answered in-process). Daemons running after each round: ${daemons}. Targets (${judged}) "first prompt p99 ≤ 1.5× \`node -e 0\`": ${yes(pct(all(judged, 'first'), 99) / pct(all('node', 'first'), 99) <= 1.5)} (${first[at]}); "every event p99 ≤ 1.3×": ${yes(pct(all(judged), 99) / pct(all('node'), 99) <= 1.3)} (${overall[at]}).`,
    );
  }
  return lines;
}
