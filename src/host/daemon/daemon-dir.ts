import { lstatSync, mkdirSync } from 'node:fs';

/**
 * Why the daemons' folder (protocol.ts `daemonDir`) must not be used, or undefined when it may:
 * it must be a real folder (not a link), owned by this user, and closed to the group and to
 * others — anyone who can write in it could put a socket of their own where the hook connects
 * and answer "allow" to every call. Imports only Node's built-ins: the client checks with it too.
 */
export function daemonDirProblem(dir: string): string | undefined {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(dir);
  } catch (error) {
    return `the daemon folder ${dir} cannot be read: ${(error as Error).message.split('\n')[0]}`;
  }
  if (!stats.isDirectory()) return `the daemon folder ${dir} is not a folder (or is a link)`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && stats.uid !== uid)
    return `the daemon folder ${dir} belongs to user ${stats.uid}, not to this user (${uid})`;
  if ((stats.mode & 0o077) !== 0)
    return `the daemon folder ${dir} is open to other users (mode ${(stats.mode & 0o777).toString(8)}; it must be 700)`;
  return undefined;
}

/** Makes the folder (mode 700) if it is not there; throws with the reason if it may not be used. */
export function ensureDaemonDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = daemonDirProblem(dir);
  if (problem !== undefined) throw new DaemonDirError(problem);
}

export class DaemonDirError extends Error {
  override name = 'DaemonDirError';
}
