import {
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';

/**
 * The files beside a daemon's socket (protocol.ts `daemonSocketPath`) by which hook clients and
 * daemons of one key agree without asking each other: which socket was found not serving, and
 * that a daemon is being started. Both live in the daemons' folder, which only its user may enter
 * (daemon-dir.ts). Imports only Node's built-ins: the hook client uses it on every call.
 */

/** A socket file as found at a moment: a new daemon's socket is another file, never this one. */
export interface SocketId {
  ino: number;
  ctimeMs: number;
}

/** What is at the socket path: nothing, a socket (which), or something else (what). */
export type AtPath =
  | { kind: 'none' }
  | { kind: 'socket'; id: SocketId }
  | { kind: 'other'; what: string };

export function atPath(path: string): AtPath {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch {
    return { kind: 'none' };
  }
  if (stats.isSocket()) return { kind: 'socket', id: { ino: stats.ino, ctimeMs: stats.ctimeMs } };
  const what = stats.isDirectory() ? 'a folder' : stats.isSymbolicLink() ? 'a link' : 'a file';
  return { kind: 'other', what };
}

/** Why a daemon cannot listen at `socket` and what to do, when something else is there. */
export function notASocket(socket: string, what: string): string {
  return `${socket} is not a socket but ${what}: the hook daemon cannot listen there, so every hook call is answered in-process; remove it (rm -r '${socket}') and the next call starts the daemon`;
}

/** `<key>.stuck` beside `<key>.sock`: the socket a client found taking requests but not serving. */
export function stuckPath(socket: string): string {
  return socket.replace(/\.sock$/, '.stuck');
}

/**
 * Marks the socket `id` as not serving: later clients skip it at once, a replacement daemon takes
 * its path instead of leaving it be, and the daemon behind it, if it ever runs again, stops.
 */
export function markStuck(socket: string, id: SocketId): void {
  // Whole or not at all (written aside, then renamed): a client that read it half-written would
  // take the socket as serving. Here, not with src/fs's helper: the client imports Node alone.
  const path = stuckPath(socket);
  const aside = `${path}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(aside, `${JSON.stringify({ ...id, at: Date.now() })}\n`, { mode: 0o600 });
    renameSync(aside, path);
  } catch (error) {
    rmSync(aside, { force: true });
    throw error;
  }
}

/** Whether the socket `id` is the one marked not serving (a marker of an older socket is not). */
export function markedStuck(socket: string, id: SocketId): boolean {
  const path = stuckPath(socket);
  // Mostly there is none: asked first, which costs less than a read that throws.
  if (!existsSync(path)) return false;
  let marker: Partial<SocketId>;
  try {
    marker = JSON.parse(readFileSync(path, 'utf8')) as Partial<SocketId>;
  } catch {
    return false;
  }
  return marker?.ino === id.ino && marker.ctimeMs === id.ctimeMs;
}

/** Removes the marker if it names the socket `id` (its daemon is going). */
export function unmarkStuck(socket: string, id: SocketId): void {
  if (markedStuck(socket, id)) rmSync(stuckPath(socket), { force: true });
}

/**
 * How long a start holds off the next one: a daemon listens within a second or two even on a
 * loaded machine, and then removes the lock that names it (so a replacement can start at once if
 * it is later found not serving). A start whose daemon failed leaves its lock: a daemon that
 * cannot start is tried again once in that time, not on every call.
 */
export const START_STALE_MS = 10_000;

/** `<key>.starting` beside `<key>.sock`: a daemon is being started (its pid, since when). */
export function startPath(socket: string): string {
  return socket.replace(/\.sock$/, '.starting');
}

interface StartLock {
  pid: number;
  at: number;
}

function readLock(socket: string): StartLock | undefined {
  const path = startPath(socket);
  let text: string;
  let since: number;
  try {
    since = statSync(path).mtimeMs;
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const lock = JSON.parse(text) as Partial<StartLock>;
    if (typeof lock?.pid === 'number' && typeof lock.at === 'number') return lock as StartLock;
  } catch {}
  // Being written, or left half-written: taken since the file was, by no one known.
  return { pid: 0, at: since };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a start is under way (worth waiting for): its lock is recent, and its process lives. */
export function starting(socket: string): boolean {
  const lock = readLock(socket);
  return (
    lock !== undefined &&
    Date.now() - lock.at < START_STALE_MS &&
    (lock.pid === 0 || alive(lock.pid))
  );
}

/**
 * Takes the start lock (exclusive create) for this process, or one older than START_STALE_MS
 * over; undefined when another start holds it. The holder names the daemon it starts with
 * `started`.
 */
export function takeStart(socket: string): { started(pid: number): void } | undefined {
  const path = startPath(socket);
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    const lock = readLock(socket);
    if (lock !== undefined && Date.now() - lock.at < START_STALE_MS) return undefined;
    // Stale. Two takers of one stale lock may both start; the daemons settle that between them
    // (server.ts: one listens, the other exits).
    rmSync(path, { force: true });
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch {
      return undefined;
    }
  }
  const write = (pid: number) => {
    ftruncateSync(fd, 0);
    writeSync(fd, `${JSON.stringify({ pid, at: Date.now() })}\n`, 0);
  };
  write(process.pid);
  return {
    started(pid: number) {
      try {
        write(pid);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Removes the lock if it names `pid` (a daemon going, or a hook that found one serving). */
export function endStart(socket: string, pid: number): void {
  if (readLock(socket)?.pid === pid) rmSync(startPath(socket), { force: true });
}
