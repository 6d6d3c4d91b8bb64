import { hermesHome } from '../../config/locations.js';
import { exitOnDaemonCrash } from '../../host/daemon/daemon-crash.js';
import { DaemonDirError } from '../../host/daemon/daemon-dir.js';
import { daemonLog } from '../../host/daemon/daemon-log.js';
import { daemonKey } from '../../host/daemon/protocol.js';
import { startHookDaemon } from '../../host/daemon/server.js';
import { stderrLogger } from '../../log/logger.js';
import { packageVersion } from '../../package-root.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes daemon run`: the hook daemon in the foreground until it is stopped or idle. Prints
 * `ready <socket>` once it listens; exits 0 at once, printing nothing, when this environment's
 * daemon is already running. With `--warm`, it first reads a session's start from stdin (the
 * protocol's request line, as the hook that starts it hands it over: client.ts) and loads that
 * session's runtime once it listens (warm.ts).
 *
 * It logs to `$HERMES_HOME/logs/daemon.log` (daemon-log.ts), always: the hook client starts it
 * with its output thrown away, and that log is where `daemon status` and `extensions doctor`
 * send an operator. Every line goes to stderr as well, which costs nothing when that is thrown
 * away and shows it to a user who runs the daemon in a terminal or under a supervisor.
 */
export async function daemonRunCommand(io: Io, options: { warm?: boolean } = {}): Promise<number> {
  const home = hermesHome();
  const logger = daemonLog(home, { alsoTo: stderrLogger });
  // The hook that starts the daemon at a session's start hands it the event (client.ts) on a pipe
  // it then closes: read whole before anything else.
  let warm: string | undefined;
  if (options.warm) {
    warm = '';
    for await (const chunk of process.stdin) warm += chunk;
  }
  let daemon: Awaited<ReturnType<typeof startHookDaemon>>;
  try {
    daemon = await startHookDaemon({
      home,
      key: daemonKey(home, packageVersion()),
      logger,
      ...(warm === undefined ? {} : { warm }),
    });
  } catch (error) {
    if (error instanceof DaemonDirError) throw new CliError(error.message, 2);
    throw error;
  }
  if (daemon === undefined) return 0;
  exitOnDaemonCrash({ log: logger, stop: () => daemon.stop() });
  const stop = () => void daemon.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  logger.info(`hermes daemon ${packageVersion()}: listening at ${daemon.socket}`);
  io.out(`ready ${daemon.socket}`);
  await daemon.closed;
  logger.info(`hermes daemon: stopped (${daemon.socket})`);
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  // A handler still running past the deadline would hold the process: it ends here.
  setTimeout(() => process.exit(0), 500).unref();
  return 0;
}
