import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The folder of the user's hook daemon sockets: `HERMES_DAEMON_DIR`, else
 * `$TMPDIR/hermes-daemon-<uid>`. Under the system's temporary folder because a socket path must be
 * short (about 100 bytes) and `$HERMES_HOME` may be long. Here, with Node's built-ins alone,
 * because both the daemon's client (which must start fast) and the protected-ground rule (a
 * socket put there would answer every hook of the user) place it. Both variables are the
 * agent's environment too, and the agent runs as the user (a folder it makes passes the checks a
 * socket folder gets): the installed hook command carries the folder as the user's environment
 * placed it at install (command-hook/hook-wrapper.ts, PINS), so the hook never reads it from there.
 */
export function daemonFolder(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return env.HERMES_DAEMON_DIR ?? join(tmpdir(), `hermes-daemon-${uid}`);
}
