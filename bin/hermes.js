#!/usr/bin/env node
// The package's command line. It runs the compiled sources, which `npm install` builds.
// CommonJS (bin/package.json), so that a hook call the warm daemon answers never starts Node's
// ES module loader: about a tenth of a bare Node start (BENCHMARKS.md, "Hook call").
const { existsSync } = require('node:fs');
const { basename, join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const args = process.argv.slice(2);

/**
 * The installed hook starts this process with the agent's `NODE_EXTRA_CA_CERTS` moved aside, so
 * that Node does not load those certificates for a call the daemon answers
 * (src/host/command-hook/hook-wrapper.ts, MOVED_CA_CERTS): it is put back before anything reads
 * the environment, so the daemon's key, the request and a daemon started from here have it.
 * True when it was moved: an answer made in-process then runs in a Node that loads them
 * (`inProcessWithCertificates`).
 */
const certificatesLeftOut = (() => {
  const moved = 'HERMES_NODE_EXTRA_CA_CERTS';
  const value = process.env[moved];
  if (value === undefined) return false;
  delete process.env[moved];
  // Given besides (not by the hook program, which clears the name first): this Node loaded its own.
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) return false;
  process.env.NODE_EXTRA_CA_CERTS = value;
  return true;
})();

/**
 * The compiled command line: the bundle (a script, compiled from V8's code cache of it: `cached`)
 * starts faster; the plain build works the same.
 */
async function cli() {
  const bundled = join(dist, 'cli.bundle.cjs');
  if (!existsSync(bundled)) return load(join('cli', 'main.js'));
  quietPipes();
  return cached(bundled, 'cli');
}

/**
 * The first of `entries` in dist/ that is there (a bundle, else the plain build), as an ES
 * module, with a quiet end for output piped into a pager that closes.
 */
function load(...entries) {
  const entry = entries.map((name) => join(dist, name)).find((path) => existsSync(path));
  if (entry === undefined) {
    process.stderr.write(
      'hermes: the package is not built (dist/ is missing). Run `npm install` or `npm run build` in it.\n',
    );
    process.exit(2);
  }
  quietPipes();
  return import(entry);
}

/** Output piped into `head` and the like: a closed pipe ends the command quietly, not with a trace. */
function quietPipes() {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}

/**
 * `hermes hook <agent>` asks the user's warm hook daemon first
 * (src/host/daemon/client.ts, which also starts one when none serves); when it does not answer,
 * the command line answers in-process, as it always has, after telling what the user should know
 * (something at the daemon's socket path to remove, a daemon that stopped serving).
 */
async function hook(agent, client) {
  const outcome = await client.answerThroughDaemon(agent, root, __filename);
  if (outcome.answered) return outcome.exitCode;
  if (outcome.notice !== undefined) process.stderr.write(`hermes: ${outcome.notice}\n`);
  else if (process.env.HERMES_DEBUG) process.stderr.write(`hermes: in-process: ${outcome.why}\n`);
  const input = outcome.input;
  if (certificatesLeftOut && typeof input === 'string')
    return inProcessWithCertificates(agent, input, outcome.deadlineMs);
  const { answerHook } = await cli();
  const stdin = {
    async *[Symbol.asyncIterator]() {
      if (typeof input !== 'string') throw input;
      yield input;
    },
  };
  return answerHook(agent, stdin, outcome.deadlineMs);
}

/**
 * The in-process answer in a Node started with the certificates this one left out: extensions
 * that reach a server over TLS (a declared policy over HTTP, a model as judge) trust what they
 * would in a hook run without the daemon. The event goes to it as read (`input`), or, for a call
 * answered in-process from the start (`HERMES_DAEMON=0`, as the hook program runs hermes when the
 * Perl hook client hands it a call the daemon took and failed), the agent's stdin is its own.
 * What it prints is the answer, its exit code this one's. Past the deadline (`deadlineMs`, else
 * the longest a hook has: hook-deadline.ts, HOOK_DEADLINE_MS) it is killed, and the hook program
 * refuses the call (no answer is no allow).
 */
function inProcessWithCertificates(agent, input, deadlineMs = 25_000) {
  const run = require('node:child_process').spawnSync(
    process.execPath,
    [__filename, 'hook', agent],
    {
      env:
        input === undefined
          ? process.env
          : { ...process.env, HERMES_DAEMON: '0', HERMES_HOOK_DEADLINE_MS: String(deadlineMs) },
      ...(input === undefined ? {} : { input }),
      stdio: [input === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
      timeout: deadlineMs + 1_000,
      killSignal: 'SIGKILL',
    },
  );
  if (run.error !== undefined || run.status === null) {
    const why = run.error?.message ?? `ended by ${run.signal}`;
    process.stderr.write(`hermes: the in-process answer could not be made: ${why}\n`);
    return 1;
  }
  return run.status;
}

/** The client, bundled (dist/hook-client.cjs) or as built; none when the daemon is turned off. */
function daemonClient() {
  if (process.env.HERMES_DAEMON === '0') return undefined;
  const bundled = join(dist, 'hook-client.cjs');
  if (existsSync(bundled)) return cached(bundled, 'hook-client');
  const built = join(dist, 'host', 'daemon', 'client.js');
  return existsSync(built) ? require(built) : undefined;
}

/**
 * A bundled script (the hook client, the command line), compiled from V8's code cache of it,
 * `dist/<name>.<node>-<arch>.v8cache`, when there is one for this very file and this Node
 * (loader/code-cache.cjs; docs/command-hooks.md, "Code caches"): compiling its functions is a
 * part of every hook call and command that a cache skips. A process that had none makes it as it
 * ends, when what it ran has been compiled.
 */
function cached(file, name) {
  let script;
  try {
    script = require('../loader/code-cache.cjs').requireCached(
      file,
      join(dist, `${name}.${process.version}-${process.arch}.v8cache`),
    );
  } catch {
    return require(file);
  }
  if (script.save) process.once('exit', script.save);
  return script.exports;
}

/**
 * This package's own top-level commands: decided from the first word alone, so a hook call never
 * looks at the PATH. Run as `hermes`, anything else (no arguments, which starts the agent's chat,
 * `--help`, `--version`, the short forms such as `hermes list`) belongs to the Hermes agent's
 * `hermes` when one is installed (bin/agent-command.js); run as `hermes-extensions`, or by its
 * path, everything is this package's.
 */
const OWN_COMMANDS = new Set(['extensions', 'hook', 'daemon', 'demo']);

function agentCommand() {
  if (OWN_COMMANDS.has(args[0])) return undefined;
  if (
    basename(process.argv[1] ?? '') !== 'hermes' &&
    !/^hermes\.(cmd|exe|bat)$/i.test(basename(process.argv[1] ?? ''))
  )
    return undefined;
  return require('./agent-command.js').agentCommand(__filename);
}

const agent = agentCommand();
const hookCall =
  agent === undefined &&
  args.length === 2 &&
  args[0] === 'hook' &&
  ['claude-code', 'codex', 'hermes-agent', 'cursor', 'antigravity', 'opencode'].includes(args[1]);
const client = hookCall && daemonClient();

/**
 * Any other command: this copy's answer, or, in a trusted project that has its own copy of this
 * package, that copy's (src/cli/hand-over.ts, docs/cli.md "Two copies"), run in this process's
 * place with the same arguments, folder and stdio, its exit code this one's.
 */
async function command() {
  const entry = await cli();
  const project = entry.handOverTarget(args, (line) => process.stderr.write(`hermes: ${line}\n`));
  if (project === undefined) return entry.main(args);
  const env = { ...process.env, [entry.HANDED_OVER]: root };
  require('./run-child.js').runChild(
    process.execPath,
    [project, ...args],
    env,
    (error) => `cannot run the project's own hermes-extensions (${project}): ${error.message}`,
  );
  return new Promise(() => {}); // run-child.js exits as the project's copy does
}

/**
 * `hermes daemon run`: the thread of its first runtime started now, before this process loads the
 * command line, so that the framework loads in it on another core meanwhile rather than after the
 * daemon listens (src/host/daemon/first-thread.ts, which the daemon takes it with and says what
 * it checks). Unreferenced until taken: a daemon that finds another one serving exits at once.
 */
function startFirstThread() {
  // As src/host/daemon/worker-entry.ts names it.
  const file = join(root, 'loader', 'daemon-worker.cjs');
  if (!existsSync(join(dist, 'daemon-worker.bundle.cjs'))) return;
  const { Worker } = require('node:worker_threads');
  // The young generation of every runtime's thread (worker-handle.ts, YOUNG_GENERATION_MB): a
  // thread started with other limits is not taken.
  const thread = new Worker(file, {
    workerData: {},
    resourceLimits: { maxYoungGenerationSizeMb: 3 },
  });
  const first = { thread, file, ended: false };
  thread.unref();
  thread.once('error', () => {
    first.ended = true;
  });
  thread.once('exit', () => {
    first.ended = true;
  });
  globalThis[Symbol.for('hermes-extensions.daemon.first-thread')] = first;
}

/**
 * `hermes daemon run`, with or without `--warm`, as hooks start it: the daemon's own entry, which
 * loads what the daemon listens with rather than the whole command line (src/cli/daemon-main.ts).
 * Any other form of it is the command line's.
 */
const daemonRun =
  agent === undefined &&
  args[0] === 'daemon' &&
  args[1] === 'run' &&
  (args.length === 2 || (args.length === 3 && args[2] === '--warm'));

async function daemon() {
  const entry = await load('daemon.bundle.js', join('cli', 'daemon-main.js'));
  return entry.daemonMain(args.slice(2));
}

if (agent === undefined && args[0] === 'daemon' && args[1] === 'run') startFirstThread();

if (agent !== undefined) {
  require('./agent-command.js').runAgent(agent, args);
} else if (hookCall && !client && certificatesLeftOut) {
  process.exitCode = inProcessWithCertificates(args[1]);
} else {
  (client ? hook(args[1], client) : daemonRun ? daemon() : command()).then((code) => {
    process.exitCode = code;
  });
}
