import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProtectedGround } from '../protected/ground.js';
import {
  BWRAP_BASE,
  type GroundSandboxAvailability,
  groundSandboxAvailability,
} from './ground-availability.js';
import { groundMounts } from './ground-mounts.js';
import { shellWord, unquoteShellWord } from './quote.js';
import { findPathPattern, standInsMade } from './stand-in.js';

/** A command line made to run in the protected-ground sandbox, or why it cannot be. */
export type GroundSandboxed =
  | { kind: 'sandboxed'; command: string }
  | { kind: 'unavailable'; reason: string; fix: string };

/**
 * The command line that runs `command` with protected ground read-only and nothing else changed
 * (docs/trust.md, Protected ground): every other file as writable as it was, the network as open.
 * On Linux, bubblewrap with the mounts of ground-mounts.ts; on macOS, `sandbox-exec` with a
 * profile that allows everything but writes there. One line of plain quoted words, made again
 * and compared byte for byte to recognise it (`groundSandboxedCommandOf`), so it is made from
 * what is on the disk now: a place made or removed since gives another line.
 *
 * On Linux a place that does not exist is blocked by a mount point bubblewrap leaves on the disk;
 * the line removes those afterwards, under an exclusive lock that no sandbox of the user's still
 * holds shared (a mount point removed while another sandbox runs would undo that sandbox's
 * block). The lock is held by `flock` outside the sandbox (`-o`: the command gets no descriptor
 * of it to unlock), and kept in `$HERMES_HOME/ground-sandbox`, protected ground itself (apart from
 * workflow-guard's `$HERMES_HOME/sandbox`, which holds its settings files alone).
 *
 * `denyRead`: paths the command may not read (docs/policy.md, The OS sandbox), each hidden by
 * something empty bound over it (ground-mounts.ts); on macOS, denied by the profile.
 */
export function groundSandboxCommand(
  command: string,
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): GroundSandboxed {
  const made = lineParts(ground, denyRead);
  if (made.kind === 'unavailable') return made;
  if (command.includes('\0')) {
    return {
      kind: 'unavailable',
      reason: 'the command holds a NUL character, which no command line can carry',
      fix: 'remove it',
    };
  }
  return { kind: 'sandboxed', command: `${made.before}${shellWord(command)}${made.after}` };
}

/**
 * The command a line made by `groundSandboxCommand` for this ground runs, or undefined when the
 * line is anything else (made again from the candidate and compared: no pattern decides).
 */
export function groundSandboxedCommandOf(
  line: string,
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): string | undefined {
  if (!line.includes(MARK)) return undefined;
  const made = lineParts(ground, denyRead, false);
  if (made.kind === 'unavailable') return undefined;
  if (!line.startsWith(made.before) || !line.endsWith(made.after)) return undefined;
  const quoted = line.slice(made.before.length, line.length - made.after.length);
  const candidate = unquoteShellWord(quoted);
  if (candidate === undefined) return undefined;
  const again = groundSandboxCommand(candidate, ground, denyRead);
  return again.kind === 'sandboxed' && again.command === line ? candidate : undefined;
}

/** The folder of `$HERMES_HOME` that holds the lock and the empty folder of these lines. */
const GROUND_SANDBOX_DIR = 'ground-sandbox';

/** In every line: a cheap first test before the line is made again. */
const MARK = ' -c ';

type Parts =
  | { kind: 'made'; before: string; after: string }
  | Extract<GroundSandboxed, { kind: 'unavailable' }>;

function lineParts(ground: ProtectedGround, denyRead: readonly string[], makeLock = true): Parts {
  const availability = groundSandboxAvailability();
  if (!availability.available) {
    return { kind: 'unavailable', reason: availability.reason, fix: availability.fix };
  }
  if (availability.platform === 'darwin') return darwinParts(availability, ground, denyRead);
  return linuxParts(availability, ground, denyRead, makeLock);
}

function linuxParts(
  tools: Extract<GroundSandboxAvailability, { platform: 'linux' }>,
  ground: ProtectedGround,
  denyRead: readonly string[],
  makeLock: boolean,
): Parts {
  const mounts = groundMounts(ground, denyRead);
  const lock = join(ground.hermesHome, GROUND_SANDBOX_DIR, 'ground.lock');
  // The source of the empty folders bound over missing folders: on protected ground, so it stays empty.
  const empty = join(ground.hermesHome, GROUND_SANDBOX_DIR, 'empty');
  const bwrap = [
    shellWord(tools.bwrap),
    ...BWRAP_BASE,
    ...mounts.keep.flatMap((dir) => ['--bind', shellWord(dir), shellWord(dir)]),
    ...mounts.readOnly.flatMap((path) => ['--ro-bind', shellWord(path), shellWord(path)]),
    // Over a stand-in, its text kept on protected ground: inside too, bash reads the file it
    // reads in its place, and bubblewrap has its source even where a line holding another lock
    // (another $HERMES_HOME) removed the one on the disk meanwhile.
    ...[...mounts.blocked, ...mounts.masked].flatMap(({ path, kind, standIn }) => [
      '--ro-bind',
      standIn !== undefined
        ? shellWord(standInSource(ground, standIn))
        : kind === 'file'
          ? '/dev/null'
          : shellWord(empty),
      shellWord(path),
    ]),
    '--',
    shellWord(tools.bash),
    '-c',
  ].join(' ');
  if (mounts.blocked.length === 0) {
    // A masked folder needs the empty folder, and no cleanup: it is there before and after.
    const problem =
      makeLock && mounts.masked.some(({ kind }) => kind === 'folder')
        ? madeEmpty(empty)
        : undefined;
    if (problem !== undefined) {
      return {
        kind: 'unavailable',
        reason: `the sandbox's empty folder ${empty} could not be made: ${problem}`,
        fix: 'make $HERMES_HOME writable by this user',
      };
    }
    return { kind: 'made', before: `${bwrap} `, after: '' };
  }
  if (makeLock) {
    const problem = madeLock(lock, empty);
    if (problem !== undefined) {
      return {
        kind: 'unavailable',
        reason: `the sandbox's lock ${lock} could not be made: ${problem}`,
        fix: 'make $HERMES_HOME writable by this user',
      };
    }
    for (const { standIn } of mounts.blocked) {
      if (standIn === undefined) continue;
      const source = standInSource(ground, standIn);
      const failed = madeStandInSource(source, standIn);
      if (failed !== undefined) {
        return {
          kind: 'unavailable',
          reason: `the sandbox's stand-in ${source} could not be made: ${failed}`,
          fix: 'make $HERMES_HOME writable by this user',
        };
      }
    }
  }
  const around = mountPointsRemoved(tools, lock, mounts.blocked);
  // The stand-ins are made under the shared lock, so no line ending meanwhile removes them first.
  const standIns = mounts.blocked.flatMap(({ path, standIn }) =>
    standIn === undefined ? [] : [{ path, text: standIn }],
  );
  const made = standIns.length === 0 ? '' : `${standInsMade(tools.bash, standIns)} `;
  return { kind: 'made', before: `${around.before}${made}${bwrap} `, after: around.after };
}

/**
 * What goes around a bubblewrap line that leaves mount points on the disk for paths that do not
 * exist (`blocked`): the line runs under a shared lock, and after it what bubblewrap left there
 * (an empty read-only file, an empty folder, a read-only stand-in of its own size: nothing else)
 * is removed, under an exclusive lock that no sandbox still running with those mounts holds
 * shared (a mount point removed from under a running sandbox would undo its block there).
 * `flock -o`: the command gets no descriptor of the lock. A removal skipped (another sandbox
 * running) is done by the next line made, which takes such a file for a left mount point
 * (`isLeftMountPoint`, `isStandIn`). `after` keeps the line's status.
 */
export function mountPointsRemoved(
  tools: { flock: string; find: string },
  lock: string,
  blocked: readonly { path: string; standIn?: string }[],
): { before: string; after: string } {
  const flock = shellWord(tools.flock);
  // A stand-in by its path and exact size (stand-in.ts): its text is the line's own.
  const standIns = blocked.flatMap(({ path, standIn }) =>
    standIn === undefined
      ? []
      : [`-o -path ${shellWord(findPathPattern(path))} -size ${Buffer.byteLength(standIn)}c`],
  );
  const files =
    standIns.length === 0
      ? "'(' -type f -perm 0444 -links 1 -o -type d ')' -empty"
      : `'(' -type f -perm 0444 -links 1 '(' -empty ${standIns.join(' ')} ')' -o -type d -empty ')'`;
  const cleanup = [
    flock,
    '-n',
    '-x',
    shellWord(lock),
    shellWord(tools.find),
    ...blocked.map(({ path }) => shellWord(path)),
    `-maxdepth 0 ${files} -delete 2>/dev/null`,
  ].join(' ');
  return {
    before: `${flock} -o -s ${shellWord(lock)} `,
    after: `; hermes_ground_status=$?; ${cleanup}; (exit $hermes_ground_status)`,
  };
}

function madeEmpty(empty: string): string | undefined {
  try {
    mkdirSync(empty, { recursive: true, mode: 0o700 });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Where a stand-in's text is kept for bubblewrap to bind, named by the text (stand-in.ts). */
function standInSource(ground: ProtectedGround, text: string): string {
  const name = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return join(ground.hermesHome, GROUND_SANDBOX_DIR, `stand-in-${name}`);
}

/** The stand-in's text at `file`, written whole (a rename) where it is not there already. */
function madeStandInSource(file: string, text: string): string | undefined {
  try {
    if (readFileSync(file, 'utf8') === text) return undefined;
  } catch {
    // Not there yet: made below.
  }
  try {
    // Its own name per writer: the daemon's runtime threads share a process id.
    const part = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
    writeFileSync(part, text, { mode: 0o600 });
    renameSync(part, file);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function madeLock(lock: string, empty: string): string | undefined {
  const problem = madeEmpty(empty);
  if (problem !== undefined) return problem;
  try {
    closeSync(openSync(lock, 'a', 0o600));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Seatbelt denies by path, so a place that does not exist needs no mount point. The folders
 * above a place may not be removed or renamed (that would move the place away from its name).
 */
function darwinParts(
  tools: Extract<GroundSandboxAvailability, { platform: 'darwin' }>,
  ground: ProtectedGround,
  denyRead: readonly string[],
): Parts {
  const places = new Set<string>();
  const above = new Set<string>();
  const unread = new Set<string>();
  const aboveAll = (path: string) => {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) above.add(dir);
  };
  for (const place of ground.places) {
    for (const path of [place.path, place.real]) {
      places.add(path);
      aboveAll(path);
    }
  }
  // A path not to read, by its name and where it really is; it may not be moved away either.
  for (const given of denyRead) {
    const path = resolve(ground.root, given);
    for (const name of new Set([path, realOr(path)])) {
      unread.add(name);
      above.add(name);
      aboveAll(name);
    }
  }
  const profile = [
    '(version 1)',
    '(allow default)',
    ...[...places].sort().map((path) => `(deny file-write* (subpath ${seatbeltString(path)}))`),
    ...[...unread].sort().map((path) => `(deny file-read* (subpath ${seatbeltString(path)}))`),
    ...[...above].sort().map((dir) => `(deny file-write-unlink (literal ${seatbeltString(dir)}))`),
  ].join('\n');
  return {
    kind: 'made',
    before: `${shellWord(tools.sandboxExec)} -p ${shellWord(profile)} ${shellWord(tools.bash)} -c `,
    after: '',
  };
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function seatbeltString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
