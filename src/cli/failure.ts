import { ConfigError } from '../config/errors.js';
import { CliError, type Io } from './io.js';

/**
 * The exit code of a command that failed with `error`, having told why on stderr: 1 or 2 for a
 * CliError, 2 for unreadable config or a file the command cannot read or write. Anything else is
 * a fault, thrown on.
 */
export function failedCommand(error: unknown, io: Io): number {
  if (error instanceof CliError) {
    io.err(`hermes: ${error.message}`);
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    io.err(`hermes: ${error.message}`);
    return 2;
  }
  // A file or folder the command needs cannot be read or written (in $HERMES_HOME, a project's
  // .hermes, an agent's settings): Node's message names it and says why, in one line.
  if (isFileSystemError(error)) {
    io.err(`hermes: ${error.message.split('\n')[0]}`);
    return 2;
  }
  throw error;
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { path: string } {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    typeof (error as NodeJS.ErrnoException).path === 'string'
  );
}
