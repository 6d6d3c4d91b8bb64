import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { currentLockUnit as unit } from './lock-unit.js';
import { answerWaits } from './lock-waits.js';

/**
 * A lock file that names its owner, so that a lock whose owner died is released at once and a
 * lock whose owner still runs is never taken, however long it holds it. Several processes that
 * share one file (the command hooks' turn state, one audit log) take it around what must not
 * interleave.
 *
 * The lock is a file created whole (a hard link to a file already written, so no process ever
 * reads half an owner) holding the owner's host, pid and start time. A process that finds it
 * taken asks whether the owner still runs:
 * - on Linux, `/proc/<pid>/stat`: no such process, a zombie, or a process of that pid that
 *   started at another time (the pid was reused) is a dead owner;
 * - elsewhere, `process.kill(pid, 0)`: a pid in use is a live owner. A dead owner's pid reused by
 *   an unrelated process keeps the lock until the waiter gives up (a timeout naming the file).
 * An owner on another host (a home folder shared over the network) cannot be asked: its lock is
 * never taken. A lock file that names no owner (a file system without hard links, whose owner
 * died while writing it) counts as abandoned once it is {@link UNNAMED_OWNER_GRACE_MS} old.
 *
 * Taking an abandoned lock is itself exclusive: the waiter first creates `<lock>.break-<inode>`
 * (only one process can), checks the lock is still the abandoned one, and only then removes it,
 * so two waiters that both judged it abandoned never remove a lock a third has taken since. A
 * claim whose waiter died (within those few system calls) is removed by the next waiter that
 * finds its owner dead.
 *
 * Processes in other pid namespaces (containers) that share the folder must not share a host
 * name either: their pids cannot be asked from here.
 *
 * A lock taken inside a unit that its process can end while the process goes on (a hook daemon's
 * runtime worker thread) names that unit too (lock-unit.ts `holdLocksIn`), and the unit's keeper
 * is told of every lock (and break claim) before it is created and after it is removed, so that
 * when it ends the unit it removes each one still holding that exact owner text: the process
 * lives on, and no waiter could tell its locks were abandoned.
 */
export interface OwnedLock {
  readonly path: string;
  /** Removes the lock, if it is still this one. */
  release(): void;
}

export interface OwnedLockOptions {
  /** How long to wait for a live owner before giving up. Default 10 s. */
  timeoutMs?: number;
  /** Between two looks at a taken lock. Default 10 ms. */
  retryMs?: number;
  /**
   * An answer waits for this lock: a wait in progress is noted where `noteLockWaits` asks, for
   * a deadline passed meanwhile to name it (lock-waits.ts).
   */
  answerWaits?: boolean;
}

/** The lock was held by a live owner for the whole wait. The message names the file and owner. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
  constructor(
    readonly path: string,
    readonly timeoutMs: number,
    holder: string,
  ) {
    super(
      `timed out after ${timeoutMs / 1000} s waiting for the lock ${path}, held by ${holder}; if that is not a hermes process, remove the file`,
    );
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_MS = 10;
/** A lock file without an owner in it this old was left by a process that died creating it. */
export const UNNAMED_OWNER_GRACE_MS = 5_000;

interface Owner {
  host: string;
  pid: number;
  /** `/proc/<pid>/stat` field 22 (start time in clock ticks since boot); null where unknown. */
  start: string | null;
  /** Tells two locks of one process apart. */
  token: string;
  /** The unit of the process that holds it, when one can be ended alone (see LockUnit). */
  unit?: string;
}

/** This thread's owner text for a new lock or claim. */
function ownerText(): string {
  const held = unit();
  const owner: Owner = { ...thisProcess(), token: randomUUID() };
  if (held !== undefined) owner.unit = held.name;
  return JSON.stringify(owner);
}

/** Creates `path` with `text` (see create), its unit told before and, if not created, after. */
function createHeld(path: string, text: string, make: () => boolean): boolean {
  const held = unit();
  held?.taking(path, text);
  let made = false;
  try {
    made = make();
  } finally {
    if (!made) held?.released(path, text);
  }
  return made;
}

/**
 * Takes the lock at `path`, waiting for a live owner (up to `timeoutMs`) and taking over at once
 * from a dead one. Throws {@link LockTimeoutError} when the wait runs out, and the file system's
 * error when the lock cannot be created at all (its folder is missing or not writable).
 */
export async function acquireOwnedLock(
  path: string,
  options: OwnedLockOptions = {},
): Promise<OwnedLock> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  const giveUpAt = Date.now() + timeoutMs;
  const waits = options.answerWaits ? answerWaits() : undefined;
  try {
    for (;;) {
      const lock = tryAcquireOwnedLock(path);
      if (lock !== undefined) return lock;
      if (Date.now() >= giveUpAt) throw new LockTimeoutError(path, timeoutMs, describeHolder(path));
      waits?.add(path);
      // Some jitter, so waiters that started together do not keep colliding.
      await new Promise((resolve) => setTimeout(resolve, retryMs * (0.5 + Math.random())));
    }
  } finally {
    waits?.delete(path);
  }
}

/** The locks at `paths` and what holds each, for a message; undefined for none. */
export function describeLockWaits(paths: Iterable<string>): string | undefined {
  const each = [...paths].map((path) => `the lock ${path}, held by ${describeHolder(path)}`);
  return each.length === 0 ? undefined : each.join('; and ');
}

/** The lock, if it is free or its owner is dead; undefined while a live owner holds it. */
export function tryAcquireOwnedLock(path: string): OwnedLock | undefined {
  // A look first: waiting on a live owner costs a read, not a file written and removed.
  const seen = look(path);
  if (seen !== undefined && !takeAbandoned(path, seen)) return undefined;
  const text = ownerText();
  return createHeld(path, text, () => create(path, text)) ? heldLock(path, text) : undefined;
}

/**
 * Removes the lock at `path` when its owner is dead (for clean-ups that find one). True when
 * there is no lock there any more.
 */
export function removeAbandonedLock(path: string): boolean {
  const seen = look(path);
  return seen === undefined || takeAbandoned(path, seen);
}

function heldLock(path: string, text: string): OwnedLock {
  return {
    path,
    release() {
      // Only a lock judged abandoned is ever taken from its owner, so this is ours unless the
      // judgement was wrong (a host renamed under a running process): then leave it be.
      if (readText(path) === text) unlinkQuietly(path);
      unit()?.released(path, text);
    },
  };
}

/** Creates the lock file with `text` in it, whole, unless it exists. */
function create(path: string, text: string): boolean {
  const written = `${path}.${randomUUID()}.tmp`;
  try {
    // Inside the try: a write that fails half-way (a full disk) leaves its empty file behind.
    writeFileSync(written, text, { mode: 0o600 });
    linkSync(written, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: created exclusively instead, with a short window in
    // which the file is there but empty (an unnamed owner, see UNNAMED_OWNER_GRACE_MS).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') {
      try {
        writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
        return true;
      } catch (fallback) {
        if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw fallback;
      }
    }
    throw error;
  } finally {
    unlinkQuietly(written);
  }
}

/**
 * Removes the lock `seen` at `path` if its owner is dead, exclusively (see the module comment).
 * True when that lock is gone (removed here or by another process), false while it is held.
 */
function takeAbandoned(path: string, seen: Seen): boolean {
  if (!abandoned(seen)) return false;
  const claim = `${path}.break-${seen.ino}`;
  const text = ownerText();
  const claimed = createHeld(claim, text, () => {
    try {
      writeFileSync(claim, text, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return false;
    }
  });
  if (!claimed) {
    // Another waiter is taking it. If that waiter died doing so, its claim goes, and the next
    // look tries again.
    const other = look(claim);
    if (other !== undefined && abandoned(other)) unlinkQuietly(claim);
    return false;
  }
  try {
    const now = look(path);
    if (now === undefined) return true;
    if (now.ino !== seen.ino || now.text !== seen.text) return false;
    unlinkQuietly(path);
    return true;
  } finally {
    unlinkQuietly(claim);
    unit()?.released(claim, text);
  }
}

interface Seen {
  text: string;
  ino: number;
  mtimeMs: number;
}

function look(path: string): Seen | undefined {
  try {
    const stat = statSync(path);
    return { text: readFileSync(path, 'utf8'), ino: stat.ino, mtimeMs: stat.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function abandoned(seen: Seen): boolean {
  const owner = parseOwner(seen.text);
  if (owner === undefined) return Date.now() - seen.mtimeMs > UNNAMED_OWNER_GRACE_MS;
  if (owner.host !== thisProcess().host) return false;
  return !isRunning(owner.pid, owner.start);
}

function describeHolder(path: string): string {
  let seen: Seen | undefined;
  try {
    seen = look(path);
  } catch {
    seen = undefined;
  }
  const owner = seen && parseOwner(seen.text);
  if (owner === undefined) return 'a process that did not name itself';
  const within = owner.unit === undefined ? '' : `, its ${owner.unit}`;
  return owner.host === thisProcess().host
    ? `process ${owner.pid} (still running)${within}`
    : `process ${owner.pid} on ${owner.host}${within}`;
}

function parseOwner(text: string): Owner | undefined {
  try {
    const value = JSON.parse(text) as Partial<Owner> | null;
    if (
      typeof value?.host === 'string' &&
      typeof value.pid === 'number' &&
      (typeof value.start === 'string' || value.start === null) &&
      typeof value.token === 'string' &&
      (value.unit === undefined || typeof value.unit === 'string')
    ) {
      return value as Owner;
    }
  } catch {
    // Not an owner record.
  }
  return undefined;
}

/** Whether the process `pid` that started at `start` (null: unknown) still runs. */
function isRunning(pid: number, start: string | null): boolean {
  const stat = procStat(pid);
  if (stat !== undefined) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return start === null || stat.start === start;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that pid — it runs.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

let me: Omit<Owner, 'token'> | undefined;

/** This process as a lock names its owner. */
function thisProcess(): Omit<Owner, 'token'> {
  me ??= { host: hostname(), pid: process.pid, start: procStat(process.pid)?.start ?? null };
  return me;
}

/**
 * `/proc/<pid>/stat`'s state (field 3) and start time (field 22). The command name (field 2) is
 * in parentheses and may itself hold spaces and parentheses, so the fields are counted from the
 * last `)`.
 */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[22 - 3];
  return state === undefined || start === undefined ? undefined : { state, start };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
