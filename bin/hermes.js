#!/usr/bin/env node
// The package's command line. It runs the compiled sources, which `npm install` builds.
// CommonJS (bin/package.json), so that a hook call the warm daemon answers never starts Node's
// ES module loader: about a tenth of a bare Node start (BENCHMARKS.md, "Hook call").
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const args = process.argv.slice(2);

/** The compiled command line: the bundle starts faster; the plain build works the same. */
function cli() {
  const bundled = join(dist, 'cli.bundle.js');
  const entry = existsSync(bundled) ? bundled : join(dist, 'cli', 'main.js');
  if (!existsSync(entry)) {
    process.stderr.write(
      'hermes: the package is not built (dist/ is missing). Run `npm install` or `npm run build` in it.\n',
    );
    process.exit(2);
  }
  // Output piped into `head` and the like: a closed pipe ends the command quietly, not with a trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return import(entry);
}

/**
 * `hermes hook claude-code|codex` asks the user's warm hook daemon first
 * (src/host/daemon/client.ts, which also starts one when none serves); when it does not answer,
 * the command line answers in-process, as it always has, after telling what the user should know
 * (something at the daemon's socket path to remove, a daemon that stopped serving).
 */
async function hook(agent, client) {
  const outcome = await client.answerThroughDaemon(agent, root, __filename);
  if (outcome.answered) return outcome.exitCode;
  if (outcome.notice !== undefined) process.stderr.write(`hermes: ${outcome.notice}\n`);
  else if (process.env.HERMES_DEBUG) process.stderr.write(`hermes: in-process: ${outcome.why}\n`);
  const { answerHook } = await cli();
  const input = outcome.input;
  const stdin = {
    async *[Symbol.asyncIterator]() {
      if (typeof input !== 'string') throw input;
      yield input;
    },
  };
  return answerHook(agent, stdin, outcome.deadlineMs);
}

/** The client, bundled (dist/hook-client.cjs) or as built; none when the daemon is turned off. */
function daemonClient() {
  if (process.env.HERMES_DAEMON === '0') return undefined;
  for (const file of [join(dist, 'hook-client.cjs'), join(dist, 'host', 'daemon', 'client.js')])
    if (existsSync(file)) return require(file);
  return undefined;
}

const client =
  args.length === 2 &&
  args[0] === 'hook' &&
  (args[1] === 'claude-code' || args[1] === 'codex' || args[1] === 'opencode') &&
  daemonClient();

(client ? hook(args[1], client) : cli().then(({ main }) => main(args))).then((code) => {
  process.exitCode = code;
});
