import { existsSync } from 'node:fs';
import { hermesHome } from '../../config/locations.js';
import type { DaemonStatus } from '../../host/daemon/protocol.js';
import { packageVersion } from '../../package-root.js';
import { CliError, type Io } from '../io.js';

/**
 * The sockets of this environment's daemons (protocol.ts: home, version, Node, the keyed
 * variables): the one this environment names as it is (`hermes hook` run from here), and the one
 * of the hooks installed from here, whose program unsets some variables and pins others
 * (hook-env.ts) — the daemon an agent started from here asks.
 */
async function ownSockets(): Promise<{ dir: string; sockets: string[] }> {
  const { daemonDir, daemonKey, daemonSocketPath } = await import('../../host/daemon/protocol.js');
  const { installedHookEnv } = await import('../../host/command-hook/hook-env.js');
  const keys = [process.env, installedHookEnv()].map((env) =>
    daemonKey(hermesHome(), packageVersion(), env),
  );
  return { dir: daemonDir(), sockets: [...new Set(keys)].map((key) => daemonSocketPath(key)) };
}

/**
 * Why a daemon is not this environment's, from what it says its socket's name was made from
 * (protocol.ts, DaemonStatus `made`), against the installed hooks' environment: its home, the
 * framework's version, Node, and each keyed variable set in one and not the other or set
 * otherwise (by name: status is told no value). Undefined from a daemon that does not tell.
 */
async function notThisEnvironment(s: Partial<DaemonStatus>): Promise<string | undefined> {
  if (s.made === undefined) return undefined;
  const { keyedDigests } = await import('../../host/daemon/protocol.js');
  const { installedHookEnv } = await import('../../host/command-hook/hook-env.js');
  const here = keyedDigests(installedHookEnv());
  const there = s.made.keyed;
  const parts: string[] = [];
  if (s.home !== hermesHome()) parts.push(`its home (${s.home})`);
  if (s.made.version !== packageVersion())
    parts.push(`hermes-extensions ${s.made.version} (${packageVersion()} here)`);
  const node = `${process.execPath} ${process.version}`;
  if (s.made.node !== node) parts.push(`Node ${s.made.node} (${node} here)`);
  for (const name of [...new Set([...Object.keys(here), ...Object.keys(there)])].sort()) {
    if (here[name] === there[name]) continue;
    const how =
      there[name] === undefined
        ? 'not set there'
        : here[name] === undefined
          ? 'set there only'
          : 'another value';
    parts.push(`${name} (${how})`);
  }
  return parts.length === 0 ? undefined : `not this environment's: ${parts.join(', ')}`;
}

/**
 * `hermes daemon status [--json]`: every hook daemon of this user (one per home and
 * environment), this environment's marked; exit 0 when this environment's runs, 1 when not.
 */
export async function daemonStatusCommand(options: { json?: boolean }, io: Io): Promise<number> {
  const { askDaemon, daemonSockets } = await import('../../host/daemon/control.js');
  const { dir, sockets } = await ownSockets();
  checkDir(dir, await import('../../host/daemon/daemon-dir.js'));
  const found = [];
  for (const path of daemonSockets(dir)) {
    const status = await askDaemon(path, 'status');
    if (status !== undefined) found.push({ ...status, thisEnvironment: sockets.includes(path) });
  }
  const running = found.some((s) => s.thisEnvironment);
  const { daemonLogPath } = await import('../../host/daemon/daemon-log.js');
  if (options.json) {
    // Each daemon's log is its home's (a daemon of another version may not tell its home).
    const withLog = [];
    for (const s of found) {
      const why = s.thisEnvironment ? undefined : await notThisEnvironment(s);
      withLog.push({
        ...s,
        ...(typeof s.home === 'string' ? { log: daemonLogPath(s.home) } : {}),
        ...(why === undefined ? {} : { notThisEnvironment: why }),
      });
    }
    io.out(JSON.stringify(withLog, null, 2));
    return running ? 0 : 1;
  }
  if (!running)
    io.out(
      `No hook daemon runs for this environment (it would listen at ${sockets.join(' or ')}).`,
    );
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
    const why = s.thisEnvironment ? undefined : await notThisEnvironment(s);
    if (why !== undefined) io.out(`  ${why}`);
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
  const { dir, sockets } = await ownSockets();
  checkDir(dir, await import('../../host/daemon/daemon-dir.js'));
  const targets = options.all ? daemonSockets(dir) : sockets;
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
  const { dir } = await ownSockets();
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
