// Dispatch benchmark: the cost of one `turn.interceptToolCall` against a hand-written loop with
// the same semantics and against hookable, koa-compose and tapable, at 0, 1, 10 and 100
// synchronous pass handlers; async handlers against a naive `await` loop; and a chain whose
// first handler blocks. The call is a `read`: the protected-ground rule decides a reader by its
// name, so the rows time the chain; one writer's call (`write`, which the rule places on the file
// system before any handler) is timed beside it, to show the rule's own cost. Run by
// bench/run.mjs, which prints the tables; this writes the medians (p50, ns) of every bench to
// stdout as one JSON line.
import { createHooks } from 'hookable';
import compose from 'koa-compose';
import { bench, do_not_optimize as doNotOptimize, group, run, summary } from 'mitata';
import tapable from 'tapable';
import { block, createRuntime, defineExtension, P, pass } from '../dist/index.js';
import { handWrittenDispatch } from './hand-written.mjs';

const { AsyncSeriesWaterfallHook } = tapable;
const PASS = pass(); // the shared pass result: returning it allocates nothing

const SIZES = [0, 1, 10, 100];
const ASYNC_SIZES = [1, 10];
const BAIL_SIZES = [1, 10, 100];
/** Handlers with a `when` pattern that matches every call, against the same without one. */
const WHEN_SIZE = 10;
const WHEN = {
  toolName: P.union('read', 'write', 'edit'),
  toolArgs: { path: P.string.startsWith('src/') },
};
const EXTENSIONS = 10;

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const call = { toolName: 'read', toolArgs: { path: 'src/a.ts', content: 'x' } };
/** The same call by a tool that writes: the protected-ground rule judges its path first. */
const writeCall = { toolName: 'write', toolArgs: call.toolArgs };
/** The chain lengths the writer's call is timed at. */
const WRITE_SIZES = [0, 1];

// Every handler is its own function, compiled from its own source, as separately written
// extensions would be: V8 sees as many distinct call targets as there are handlers.
const distinct = (i, params, body, scope = {}) =>
  new Function(...Object.keys(scope), `return function handler${i}(${params}) {\n${body}\n};`)(
    ...Object.values(scope),
  );

// Half return nothing, half return the shared `pass()`: both are a pass.
const syncPass = (i) =>
  distinct(
    i,
    'event',
    `if (event.toolName === 'never-${i}') return null;\nreturn ${i % 2 ? 'PASS' : 'undefined'};`,
    { PASS },
  );
const asyncPass = (i) =>
  distinct(
    i,
    'event',
    `if (event.toolName === 'never-${i}') return null;\nreturn Promise.resolve();`,
  );
const hookablePass = (i) =>
  distinct(i, 'ctx', `if (ctx.toolName === 'never-${i}') return;\nctx.passes++;`);
const koaPass = (i) =>
  distinct(
    i,
    'ctx, next',
    `if (ctx.toolName === 'never-${i}') return;\nctx.passes++;\nreturn next();`,
  );
const tapablePass = (i) =>
  distinct(i, 'value', `if (value.toolName === 'never-${i}') return null;\nreturn undefined;`);
const blocker = () => block('writes are frozen');

const range = (n, make) => Array.from({ length: n }, (_, i) => make(i));

/**
 * A runtime whose handlers are spread over up to ten extensions, with one turn kept open, and
 * the same handlers as the hand-written loop holds them (in the order the runtime runs them).
 */
async function setup(fns, options, first) {
  const groups = Array.from({ length: EXTENSIONS }, () => []);
  fns.forEach((fn, i) => {
    groups[i % EXTENSIONS].push(fn);
  });
  const extensions = groups.map((list, k) =>
    defineExtension({
      name: `ext-${k}`,
      setup(hermes) {
        if (k === 0 && first) hermes.on('intercept_tool_call', first, { priority: 0 });
        for (const fn of list) hermes.on('intercept_tool_call', fn, options);
      },
    }),
  );
  const runtime = await createRuntime({ extensions, logger: silentLogger });
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  let turn;
  const done = runtime.runTurn({ sessionId: `bench-${Math.random()}` }, (t) => {
    turn = t;
    return gate;
  });
  const handlers = [];
  if (first) handlers.push({ extension: 'ext-0', fn: first, onError: 'block' });
  groups.forEach((list, k) => {
    for (const fn of list) handlers.push({ extension: `ext-${k}`, fn, onError: 'block' });
  });
  return {
    turn,
    handlers,
    close: async () => {
      release();
      await done;
    },
  };
}

function checkOutcome(outcome, n, blocked = false) {
  if (outcome.blocked !== blocked || outcome.trace.length !== n || outcome.changed) {
    throw new Error(`unexpected outcome for ${n} handlers: ${JSON.stringify(outcome)}`);
  }
}

const cases = []; // [name, fn], registered with mitata below, pre-warmed together first
const closers = [];

for (const n of SIZES) {
  const s = await setup(range(n, syncPass));
  closers.push(s.close);
  const { turn, handlers } = s;
  checkOutcome(turn.interceptToolCall(call), n);
  checkOutcome(handWrittenDispatch(handlers, call, turn), n);

  const hooks = createHooks();
  for (const fn of range(n, hookablePass)) hooks.hook('intercept_tool_call', fn);
  const composed = compose(range(n, koaPass));
  const waterfall = new AsyncSeriesWaterfallHook(['value']);
  for (const [i, fn] of range(n, tapablePass).entries()) waterfall.tap(`ext-${i}`, fn);
  const ctxFor = () => ({ toolName: call.toolName, toolArgs: call.toolArgs, passes: 0 });

  cases.push(
    [`runtime ${n}`, () => doNotOptimize(turn.interceptToolCall(call))],
    [`hand-written ${n}`, () => doNotOptimize(handWrittenDispatch(handlers, call, turn))],
    [
      `hookable ${n}`,
      () => {
        const ctx = ctxFor();
        const result = hooks.callHook('intercept_tool_call', ctx);
        // callHook returns undefined when every handler was synchronous.
        if (result !== undefined) return result.then(() => doNotOptimize(ctx));
        doNotOptimize(ctx);
      },
    ],
    [`koa-compose ${n}`, () => composed(ctxFor()).then(doNotOptimize)],
    [`tapable ${n}`, () => waterfall.promise(ctxFor()).then(doNotOptimize)],
  );
}

for (const n of WRITE_SIZES) {
  const s = await setup(range(n, syncPass));
  closers.push(s.close);
  checkOutcome(s.turn.interceptToolCall(writeCall), n);
  cases.push([`write runtime ${n}`, () => doNotOptimize(s.turn.interceptToolCall(writeCall))]);
}

for (const n of ASYNC_SIZES) {
  const fns = range(n, asyncPass);
  const s = await setup(fns);
  const inf = await setup(fns, { timeoutMs: Number.POSITIVE_INFINITY });
  closers.push(s.close, inf.close);
  checkOutcome(await s.turn.interceptToolCall(call), n);
  checkOutcome(await inf.turn.interceptToolCall(call), n);
  const event = Object.freeze({ ...call, state: {} });
  const naive = async () => {
    for (let i = 0; i < fns.length; i++) await fns[i](event);
  };
  cases.push(
    [`async runtime ${n}`, async () => doNotOptimize(await s.turn.interceptToolCall(call))],
    [
      `async runtime-no-timeout ${n}`,
      async () => doNotOptimize(await inf.turn.interceptToolCall(call)),
    ],
    [`async naive-await ${n}`, async () => doNotOptimize(await naive())],
  );
}

for (const n of BAIL_SIZES) {
  const s = await setup(range(n - 1, syncPass), undefined, blocker);
  closers.push(s.close);
  const { turn, handlers } = s;
  checkOutcome(turn.interceptToolCall(call), 1, true);
  checkOutcome(handWrittenDispatch(handlers, call, turn), 1, true);
  cases.push(
    [`bail runtime ${n}`, () => doNotOptimize(turn.interceptToolCall(call))],
    [`bail hand-written ${n}`, () => doNotOptimize(handWrittenDispatch(handlers, call, turn))],
  );
}

{
  const fns = range(WHEN_SIZE, syncPass);
  const matched = await setup(fns, { when: WHEN });
  closers.push(matched.close);
  checkOutcome(matched.turn.interceptToolCall(call), WHEN_SIZE);
  cases.push([
    `when runtime ${WHEN_SIZE}`,
    () => doNotOptimize(matched.turn.interceptToolCall(call)),
  ]);
}

// Warm every case before measuring any, so each shared call site (the runtime's handler call,
// the hand-written loop's, hookable's…) has seen every chain length, as in a long-running host.
for (let round = 0; round < 2000; round++) {
  for (const [, fn] of cases) {
    const r = fn();
    if (r instanceof Promise) await r;
  }
}

// Grouped by chain length, so the implementations compared at one size are measured one right
// after the other (the machine's load drifts over a run).
for (const n of SIZES) {
  summary(() => {
    group(`${n} sync pass handlers`, () => {
      for (const impl of ['runtime', 'hand-written', 'hookable', 'koa-compose', 'tapable']) {
        bench(`${impl} ${n}`, cases.find(([name]) => name === `${impl} ${n}`)[1]);
      }
    });
  });
}
for (const [title, prefix] of [
  ['async handlers (Promise.resolve())', 'async '],
  ['first handler blocks', 'bail '],
  ['handlers with a `when` pattern', 'when '],
  ["a writer's call (the protected-ground rule first)", 'write '],
]) {
  group(title, () => {
    for (const [name, fn] of cases) if (name.startsWith(prefix)) bench(name, fn);
  });
}

// mitata's own report (every percentile, per bench) only with BENCH_VERBOSE=1, on stderr.
const { context, benchmarks } = await run(
  process.env.BENCH_VERBOSE
    ? { colors: false, print: (line) => process.stderr.write(`${line}\n`) }
    : { format: 'quiet' },
);
for (const close of closers) await close();

const medians = {};
for (const trial of benchmarks) {
  for (const r of trial.runs) {
    if (r.error) throw r.error;
    medians[r.name] = r.stats.p50;
  }
}
process.stdout.write(
  `${JSON.stringify({
    cpu: context.cpu?.name ?? null,
    sizes: SIZES,
    asyncSizes: ASYNC_SIZES,
    bailSizes: BAIL_SIZES,
    whenSize: WHEN_SIZE,
    writeSizes: WRITE_SIZES,
    medians,
  })}\n`,
);
