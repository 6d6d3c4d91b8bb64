// Runs another program in this process's place: the Hermes agent's `hermes` (agent-command.js),
// or the project's own copy of this package (src/cli/hand-over.ts).
const { spawn } = require('node:child_process');

/**
 * Runs `command` with `args`, this process's stdio and the environment `env`, and exits as it
 * exits: its code, or the signal that ended it. A terminal's Ctrl-C reaches both processes: this
 * one waits for the child to decide what an interrupt means; a signal sent to this process alone
 * is passed on. `cannotRun` says, in a line, why it could not start (exit 127).
 */
function runChild(command, args, env, cannotRun) {
  const child = spawn(command, args, { stdio: 'inherit', env });
  const forwarded = ['SIGTERM', 'SIGHUP'];
  for (const signal of ['SIGINT', 'SIGQUIT', ...forwarded]) {
    process.on(signal, () => {
      if (forwarded.includes(signal)) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`hermes: ${cannotRun(error)}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

module.exports = { runChild };
