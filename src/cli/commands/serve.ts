import { stderrLogger } from '../../log/logger.js';
import { commandContext } from '../context.js';
import { CliError } from '../io.js';

/**
 * `hermes extensions serve --stdio [--max-line-bytes <n>]`: serves the hooks over JSON-RPC 2.0,
 * one message per line on stdin and stdout, until stdin ends.
 */
export async function serveCommand(options: {
  cwd?: string;
  stdio?: boolean;
  maxLineBytes?: string;
}): Promise<number> {
  if (!options.stdio) throw new CliError('serve needs --stdio (the one transport there is)', 2);
  const maxLineBytes =
    options.maxLineBytes === undefined ? undefined : Number(options.maxLineBytes);
  if (maxLineBytes !== undefined && !(Number.isSafeInteger(maxLineBytes) && maxLineBytes > 0)) {
    throw new CliError(
      `--max-line-bytes takes a whole number of bytes above 0, not "${options.maxLineBytes}"`,
      2,
    );
  }
  const { serveBridge } = await import('../../host/bridge/server.js');
  const { onProcessCrash, refusedExits } = await import('../../host/process-crash.js');
  // After the options: a usage mistake is reported before a problem with $HERMES_HOME.
  const context = commandContext(options);
  let serving = true;
  let exits = () => {};
  // An exit no extension made (the host's closed pipe) is not silent either.
  process.once('exit', (code) => {
    if (serving) stderrLogger.error(`bridge: the process is ending (exit ${code}) while serving`);
  });
  await serveBridge({
    cwd: context.cwd,
    home: context.home,
    input: process.stdin,
    output: process.stdout,
    logger: stderrLogger,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
    // Kept to the end of the process: what an extension left running may still throw.
    crashes: (listener) => {
      onProcessCrash(listener);
      exits = refusedExits(listener);
      return () => {};
    },
  });
  serving = false;
  exits();
  // Whatever an extension left running (a timer of a runtime that crashed) ends with the server;
  // unref'd, so a process with nothing left ends at once, with its answers written.
  setTimeout(() => process.stdout.write('', () => process.exit(0)), 500).unref();
  return 0;
}
