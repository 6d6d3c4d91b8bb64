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
  // After the options: a usage mistake is reported before a problem with $HERMES_HOME.
  const context = commandContext(options);
  await serveBridge({
    cwd: context.cwd,
    home: context.home,
    input: process.stdin,
    output: process.stdout,
    logger: stderrLogger,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  return 0;
}
