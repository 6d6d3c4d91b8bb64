// The Hermes agent's own `hermes`, for the commands of that name that are not this package's.
// The agent (a Python program) and this package both install a command called `hermes`. Whichever
// comes first on the PATH, every command must reach its owner: bin/hermes.js keeps `extensions`,
// `hook`, `daemon` and `demo`, and hands anything else to the agent's `hermes` found here (the
// other way round, the agent's plugin in clients/hermes-agent-plugin/ hands `hermes extensions …`
// to this package). README.md, "The command line", says it for users.
const { accessSync, constants, readFileSync, realpathSync, statSync } = require('node:fs');
const { basename, delimiter, dirname, join } = require('node:path');
const { runChild } = require('./run-child.js');

/** The names a command called `hermes` can have on this system. */
function commandNames() {
  if (process.platform !== 'win32') return ['hermes'];
  const extensions = (process.env.PATHEXT || '.EXE;.CMD;.BAT').split(';').filter(Boolean);
  return extensions.map((extension) => `hermes${extension.toLowerCase()}`);
}

/**
 * Whether `file` is a copy of this package's command, not the agent's: npm links (a global
 * install, a project's node_modules/.bin) resolve to some hermes-extensions' bin/hermes.js; a
 * Windows shim names it in its text. Another copy counts as this one: handing a command to it
 * would hand it back.
 */
function isThisPackage(file, own) {
  let real;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  if (real === own) return true;
  if (basename(real) === 'hermes.js') {
    try {
      const manifest = JSON.parse(readFileSync(join(dirname(real), '..', 'package.json'), 'utf8'));
      return manifest.name === 'hermes-extensions';
    } catch {
      return false;
    }
  }
  if (process.platform === 'win32') {
    try {
      return /hermes-extensions[\\/]+bin[\\/]+hermes\.js/.test(readFileSync(real, 'utf8'));
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * How many times a `hermes` of this package has handed a command on, counted down the process
 * tree: a `hermes` this check cannot tell from the agent's (another copy of this package behind a
 * wrapper script) would otherwise hand it back and forth for ever. The agent's own child
 * processes inherit the count, so a few are allowed.
 */
const HANDOFFS = 'HERMES_EXTENSIONS_HANDOFFS';
const MAX_HANDOFFS = 3;

/** The first `hermes` on the PATH that is an executable file and not this package; else undefined. */
function agentCommand(ownScript) {
  const handoffs = Number(process.env[HANDOFFS]) || 0;
  if (handoffs >= MAX_HANDOFFS) {
    process.stderr.write(
      `hermes: ${handoffs} commands named hermes handed this command on to each other; answering it here. Run the Hermes agent by its path, or this package as hermes-extensions.\n`,
    );
    return undefined;
  }
  const own = realpathSync(ownScript);
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    if (dir === '') continue;
    for (const name of commandNames()) {
      const file = join(dir, name);
      try {
        if (!statSync(file).isFile()) continue;
        accessSync(file, constants.X_OK);
      } catch {
        continue;
      }
      if (!isThisPackage(file, own)) return file;
    }
  }
  return undefined;
}

/** Runs the agent's `hermes` with `args` in this process's place (run-child.js), one hand-off more. */
function runAgent(command, args) {
  const handoffs = (Number(process.env[HANDOFFS]) || 0) + 1;
  const env = { ...process.env, [HANDOFFS]: String(handoffs) };
  runChild(
    command,
    args,
    env,
    (error) =>
      `cannot run the Hermes agent's ${command}: ${error.message}. Run this package's commands as hermes-extensions.`,
  );
}

module.exports = { agentCommand, runAgent };
