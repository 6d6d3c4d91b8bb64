import { daemonRunCommand } from './commands/daemon-run.js';
import { failedCommand } from './failure.js';
import { processIo } from './io.js';

/**
 * `hermes daemon run` and `hermes daemon run --warm`, the two forms hooks start the daemon with,
 * as an entry of their own (dist/daemon.bundle.js, which bin/hermes.js loads for exactly these
 * words): the daemon's process loads what it listens with and not the whole command line, whose
 * framework and policies it never runs itself (each runtime loads them in its own thread:
 * runtime-worker.ts). A session's first prompt waits for the daemon to listen (BENCHMARKS.md,
 * "The daemon's own entry and the runtime thread's code cache"). Its failures are told and exit
 * as the command line's are (failure.ts); any other form of the command (`--help`, an unknown
 * option) is the command line's.
 */
export async function daemonMain(argv: readonly string[]): Promise<number> {
  const io = processIo();
  try {
    return await daemonRunCommand(io, { warm: argv.includes('--warm') });
  } catch (error) {
    return failedCommand(error, io);
  }
}
