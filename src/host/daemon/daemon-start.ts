/**
 * Starting the hook daemon from a hook (client.ts): one start per socket at a time (markers.ts),
 * detached from the agent's pipes. Bundled into the hook client, so it loads only Node's
 * built-ins and the leaves it shares with the daemon (.dependency-cruiser.cjs, CLIENT_LEAVES).
 */
import { type AtPath, atPath, endStart, markedStuck, takeStart } from './markers.js';
import type { DaemonRequest } from './protocol.js';

/**
 * Starts the daemon for this home, version and environment in the background, detached and
 * with no stdio of the agent's (an agent waits for its hook's pipes to close), unless another
 * start holds the lock (markers.ts `takeStart`), or a daemon has come up at the socket since it
 * was `found`: false then. In the hook's working folder, so a relative `$HERMES_HOME` names the
 * same home. Started before this call answers in-process, so the hooks that arrive meanwhile find
 * it sooner. `warm`, a session's start, is handed to it on its stdin (`daemon run --warm`): a
 * pipe of this process's own, never the agent's, which it reads as it starts.
 */
export function startDaemon(
  socket: string,
  bin: string,
  found: AtPath,
  warm?: DaemonRequest,
): boolean {
  const start = takeStart(socket);
  if (start === undefined) return false;
  const now = atPath(socket);
  if (now.kind === 'socket' && !markedStuck(socket, now.id) && !sameSocket(found, now)) {
    start.started(process.pid);
    endStart(socket, process.pid);
    return false;
  }
  let pid = process.pid;
  try {
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, [bin, 'daemon', 'run', ...(warm ? ['--warm'] : [])], {
      detached: true,
      stdio: [warm ? 'pipe' : 'ignore', 'ignore', 'ignore'],
      env: { ...DAEMON_MALLOC, ...process.env },
    });
    child.on('error', () => {}).unref();
    if (warm !== undefined) {
      // A daemon that ends before reading it loses only the warm start.
      child.stdin?.on('error', () => {});
      child.stdin?.end(`${JSON.stringify(warm)}\n`);
    }
    pid = child.pid ?? pid;
  } catch {
    // The lock names this process then: no hook waits for it once this one has gone, and the
    // next start comes once the lock is stale (markers.ts).
  }
  start.started(pid);
  return true;
}

/**
 * What the daemon is started with besides the hook's environment, unless the hook sets it: glibc
 * gives each thread that allocates an arena of its own and keeps what it freed there, so a daemon
 * of a dozen runtime threads held some 4 MB more a runtime than with two arenas shared
 * (BENCHMARKS.md, Daemon soak). Read by glibc as the process starts; other C libraries ignore it,
 * and nothing keys the daemon on it (protocol.ts DAEMON_ENV).
 */
const DAEMON_MALLOC = { MALLOC_ARENA_MAX: '2' };

function sameSocket(a: AtPath, b: AtPath): boolean {
  return (
    a.kind === 'socket' &&
    b.kind === 'socket' &&
    a.id.ino === b.id.ino &&
    a.id.ctimeMs === b.id.ctimeMs
  );
}
