import { existsSync } from 'node:fs';
import { hermesHome } from '../../config/locations.js';
import type { DaemonStatus } from '../../host/daemon/protocol.js';
import { packageVersion } from '../../package-root.js';
import { CliError, type Io } from '../io.js';

/** The socket of this environment's daemon (protocol.ts: home, version, Node, HERMES_* variables). */
async function ownSocket(): Promise<{ dir: string; socket: string }> {
  const { daemonDir, daemonKey, daemonSocketPath } = await import('../../host/daemon/protocol.js');
  const key = daemonKey(hermesHome(), packageVersion());
  return { dir: daemonDir(), socket: daemonSocketPath(key) };
}

/**
 * `hermes daemon status [--json]`: every hook daemon of this user (one per home and
 * environment), this environment's marked; exit 0 when this environment's runs, 1 when not.
 */
export async function daemonStatusCommand(options: { json?: boolean }, io: Io): Promise<number> {
  const { askDaemon, daemonSockets } = await import('../../host/daemon/control.js');
  const { dir, socket } = await ownSocket();
  checkDir(dir, await import('../../host/daemon/daemon-dir.js'));
  const found = [];
  for (const path of daemonSockets(dir)) {
    const status = await askDaemon(path, 'status');
    if (status !== undefined) found.push({ ...status, thisEnvironment: path === socket });
  }
  const running = found.some((s) => s.thisEnvironment);
  const { daemonLogPath } = await import('../../host/daemon/daemon-log.js');
  if (options.json) {
    // Each daemon's log is its home's (a daemon of another version may not tell its home).
    const withLog = found.map((s) =>
      typeof s.home === 'string' ? { ...s, log: daemonLogPath(s.home) } : s,
    );
    io.out(JSON.stringify(withLog, null, 2));
    return running ? 0 : 1;
  }
  if (!running) io.out(`No hook daemon runs for this environment (it would listen at ${socket}).`);
  for (const s of found) {
    const minutes = Math.round(s.uptimeMs / 60_000);
    // A daemon of another version may not tell its runtimes and memory.
    const held =
      typeof s.runtimes === 'number' && typeof s.rss === 'number'
        ? `, ${s.runtimes} runtime(s) in ${Math.round(s.rss / 1_048_576)} MB`
        : '';
    io.out(
      `${s.thisEnvironment ? 'This environment' : 'Another environment'}: pid ${s.pid}, ${s.socket}, home ${s.home}, up ${minutes} min, ${s.requests} event(s) answered, ${s.projects.length} project(s) loaded${s.projects.length > 0 ? `: ${s.projects.join(', ')}` : ''}${held}`,
    );
    for (const line of warmLines(s)) io.out(`  ${line}`);
  }
  // Also when none runs: the log says why the last one ended, or what it could not do.
  io.out(`Log: ${daemonLogPath(hermesHome())}`);
  return running ? 0 : 1;
}

/**
 * The runtimes a daemon keeps warm, each as answering or idle for how long, and when it lets them
 * go (runtime-eviction.ts); nothing from a daemon of a version that does not tell.
 */
function warmLines(s: Partial<DaemonStatus>): string[] {
  const lines = (s.warm ?? []).map(
    (w) =>
      `warm: ${w.project} (${w.busy > 0 ? `answering ${w.busy} event(s)` : `idle ${Math.round((w.idleMs ?? 0) / 1000)} s`})`,
  );
  if (s.limits !== undefined) {
    lines.push(
      `lets a runtime go after ${Math.round(s.limits.runtimeIdleMs / 1000)} s idle (HERMES_DAEMON_RUNTIME_IDLE_MS), and the least recently used idle one while over ${Math.round(s.limits.maxRss / 1_048_576)} MB (HERMES_DAEMON_MAX_MB); at most ${s.limits.maxRuntimes} runtimes (HERMES_DAEMON_MAX_RUNTIMES)`,
    );
  }
  return lines;
}

/** `hermes daemon stop [--all]`: stops this environment's daemon (or every one), and waits. */
export async function daemonStopCommand(options: { all?: boolean }, io: Io): Promise<number> {
  const { daemonSockets } = await import('../../host/daemon/control.js');
  const { dir, socket } = await ownSocket();
  checkDir(dir, await import('../../host/daemon/daemon-dir.js'));
  const targets = options.all ? daemonSockets(dir) : [socket];
  let stopped = 0;
  for (const path of targets) if (await stopDaemon(path, io)) stopped++;
  if (stopped === 0)
    io.out(
      options.all ? 'No hook daemon is running.' : 'No hook daemon runs for this environment.',
    );
  return 0;
}

/**
 * The hook daemons that serve `home`, whatever their version or environment (`hermes extensions
 * uninstall` stops them all), with their pids; none when the daemons' folder cannot be used.
 */
export async function daemonsOfHome(
  home: string,
): Promise<{ dir: string; daemons: Array<{ socket: string; pid: number }> }> {
  const { askDaemon, daemonSockets } = await import('../../host/daemon/control.js');
  const { daemonDirProblem } = await import('../../host/daemon/daemon-dir.js');
  const { dir } = await ownSocket();
  if (!existsSync(dir) || daemonDirProblem(dir) !== undefined) return { dir, daemons: [] };
  const daemons = [];
  for (const socket of daemonSockets(dir)) {
    const status = await askDaemon(socket, 'status');
    if (status !== undefined && status.home === home) daemons.push({ socket, pid: status.pid });
  }
  return { dir, daemons };
}

/**
 * Stops the daemon at `socket` and waits until its process has ended (it removes its socket
 * first, then writes its last log line): whatever comes next may remove its files. False when
 * no daemon answered there.
 */
export async function stopDaemon(socket: string, io: Io): Promise<boolean> {
  const { askDaemon } = await import('../../host/daemon/control.js');
  const status = await askDaemon(socket, 'stop');
  if (status === undefined) return false;
  for (let waited = 0; (existsSync(socket) || alive(status.pid)) && waited < 10_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  io.out(`Stopped the hook daemon ${status.pid} (${socket}).`);
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function checkDir(
  dir: string,
  { daemonDirProblem }: typeof import('../../host/daemon/daemon-dir.js'),
) {
  if (!existsSync(dir)) return;
  const problem = daemonDirProblem(dir);
  if (problem !== undefined) throw new CliError(problem, 2);
}
