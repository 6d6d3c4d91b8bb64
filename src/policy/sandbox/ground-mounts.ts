import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProtectedGround } from '../protected/ground.js';
import { isStandIn, standInText } from './stand-in.js';

/**
 * What the protected-ground sandbox mounts (docs/trust.md, Protected ground): bubblewrap binds
 * the whole system as it is, then, in this order (parents first, as bubblewrap applies them):
 *
 * - `keep`: each folder above a protected place bound onto itself, writable as before. A folder
 *   that is a mount point cannot be renamed or removed, and one that holds a mount point can:
 *   `mv .claude old && mkdir .claude` would otherwise leave the read-only `settings.json` under
 *   `old/` and make a new one.
 * - `readOnly`: each protected place that exists, where it really is, bound read-only.
 * - `blocked`: for a protected place that does not exist, its first missing part gets something
 *   read-only bound over it, so it cannot be made: the null device over the place itself, an
 *   empty folder over a folder above it (`~/.cursor` for `~/.cursor/hooks.json`: the folder stays
 *   one, so a program outside that makes it meanwhile still can). bubblewrap makes the mount
 *   point on the real disk — an empty read-only file, an empty folder — and the command line
 *   removes it afterwards (ground-sandbox.ts). A missing login start-up file that bash reads in
 *   front of a later one (`~/.bash_profile`) gets a stand-in instead of an empty file: the line
 *   makes it, with a text that reads the later file (stand-in.ts), so that login shells started
 *   meanwhile outside the sandbox read what they read without it.
 * - `masked`: each path the command may not read (`denyRead`, docs/policy.md, The OS sandbox)
 *   that exists, where it really is, with something bound read-only over it: the null device
 *   over a file, an empty folder over a folder. bubblewrap's binds allow no devices, so the file
 *   cannot be opened (EACCES, permission denied) — as the sandbox runtime's `denyRead` does on
 *   Linux, so a program meets a denied file the same way in both sandboxes, and sees why — and
 *   the folder lists nothing. An empty file instead would pass for a real one with nothing in
 *   it (a program would go on without its settings, unaware). Each folder above it is kept too:
 *   renamed, it would take the mask along and leave the file, unmasked, under a name the next
 *   sandbox may not know. A path that does not exist has nothing to hide.
 */
export interface GroundMounts {
  keep: string[];
  readOnly: string[];
  blocked: Blocked[];
  masked: Blocked[];
}

export interface Blocked {
  path: string;
  /** What is bound over it: the null device (`file`) or an empty folder (`folder`). */
  kind: 'file' | 'folder';
  /** A file's stand-in text, where the line makes the mount point itself (stand-in.ts). */
  standIn?: string;
}

/** The mounts that keep `ground` read-only and `denyRead` unread, as the disk is now. */
export function groundMounts(
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): GroundMounts {
  const existing: string[] = [];
  const missing: string[] = [];
  /** The stand-in text of each missing place that bash reads in front of a later one. */
  const standIns = new Map<string, string>();
  // One resolve of each existing folder for the whole line: most places share the project's or
  // the home's, and each resolve is a system call per part of the path.
  const resolved = new Map<string, string | undefined>();
  for (const place of ground.places) {
    const at = realPlace(place.real, resolved);
    if (at === undefined || at.startsWith('/dev/') || at.startsWith('/proc/')) continue;
    const text = place.hides?.length ? standInText(place.hides) : undefined;
    if (present(at, text)) {
      existing.push(at);
      continue;
    }
    missing.push(at);
    if (text !== undefined) standIns.set(at, text);
  }
  // A place inside another that is read-only is read-only already (and a writable bind of a
  // folder above it, there, would make it writable again).
  const readOnly = outermost(existing);
  const covered = (path: string) => readOnly.some((place) => atOrBelow(path, place));
  const blocked = new Map<string, Blocked['kind']>();
  // One look at each folder for the whole line: most places are missing files in the home.
  const looked = new Map<string, ReturnType<typeof folderLook>>();
  for (const path of missing) {
    if (covered(path)) continue;
    const first = firstMissing(path, looked);
    if (first === undefined || covered(first)) continue;
    // A folder wins over a file where two places share it (`.claude` above both settings files).
    if (first !== path || blocked.get(first) === 'folder') blocked.set(first, 'folder');
    else blocked.set(first, 'file');
  }
  const masked = new Map<string, Blocked['kind']>();
  for (const path of outermost(
    denyRead.flatMap((given) => existingReal(resolve(ground.root, given)) ?? []),
  )) {
    if (path === '/' || path.startsWith('/dev/') || path.startsWith('/proc/')) continue;
    masked.set(path, statSync(path, { throwIfNoEntry: false })?.isDirectory() ? 'folder' : 'file');
  }
  const keep = new Set<string>();
  for (const path of [...readOnly, ...blocked.keys(), ...masked.keys()]) {
    for (let dir = dirname(path); dir !== '/' && dir !== dirname(dir); dir = dirname(dir)) {
      // Inside a read-only place nothing can be renamed, and a writable bind there would undo it.
      if (!covered(dir)) keep.add(dir);
    }
  }
  const kinds = (map: Map<string, Blocked['kind']>) =>
    byDepth([...map.keys()]).map((path) => ({ path, kind: map.get(path) as Blocked['kind'] }));
  return {
    keep: byDepth([...keep]),
    readOnly: byDepth(readOnly),
    // Only a file blocked where it is named stands in: a missing folder above it hides nothing.
    blocked: kinds(blocked).map((entry) => {
      const text = entry.kind === 'file' ? standIns.get(entry.path) : undefined;
      return text === undefined ? entry : { ...entry, standIn: text };
    }),
    masked: kinds(masked),
  };
}

/** Where an existing path really is; undefined when nothing is there (or it cannot be resolved). */
function existingReal(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/**
 * A place as bubblewrap will reach it: links resolved where it exists, else its nearest existing
 * folder resolved with the rest of the name. Undefined when it cannot be resolved (a loop).
 * Each part is looked at before it is resolved: most places are missing, and a failed resolve
 * costs an exception, which on every sandboxed call was most of the sandbox line's price.
 */
function realPlace(path: string, resolved: Map<string, string | undefined>): string | undefined {
  let at = path;
  const rest: string[] = [];
  for (;;) {
    if (resolved.has(at)) {
      const real = resolved.get(at);
      return real === undefined ? undefined : join(real, ...rest);
    }
    const stats = statOf(at);
    if (stats !== undefined) {
      try {
        const real = realpathSync.native(at);
        // Only a folder's: a place's own answer is asked for once anyway.
        if (rest.length > 0) resolved.set(at, real);
        return join(real, ...rest);
      } catch {
        if (stats.isSymbolicLink()) {
          if (rest.length > 0) resolved.set(at, undefined);
          return undefined;
        }
      }
    }
    const parent = dirname(at);
    if (parent === at) return undefined;
    rest.unshift(at.slice(parent.length + 1));
    at = parent;
  }
}

/**
 * The first missing component of `path` — where a blocking mount stops the rest from being made —
 * or undefined when nothing can be made there anyway: what exists above it is not a folder, or
 * this user cannot write in it. `path` itself was found missing (`present`): it is not looked at
 * again, so a place seen missing is blocked, never left out.
 *
 * Other sandboxes make and remove their mount points meanwhile, so each folder above is judged
 * by one look, and one that is gone when looked at again counts as absent and the walk goes on:
 * a folder that vanished between two looks must not end it with nothing blocked.
 */
function firstMissing(
  path: string,
  looked: Map<string, ReturnType<typeof folderLook>>,
): string | undefined {
  let at = path;
  for (;;) {
    const parent = dirname(at);
    if (parent === at) return undefined;
    // An empty folder above the place stands for none: it is what a sandbox running now (or one
    // killed before it cleaned up) left as a mount point, and a line made meanwhile must be the
    // line made after, or the agent's copy of it would not be recognised.
    let held = looked.get(parent);
    if (held === undefined) {
      held = folderLook(parent);
      looked.set(parent, held);
    }
    if (held === 'writable') return at;
    if (held !== 'nothing') return undefined;
    at = parent;
  }
}

/** What a folder holds (`folderHolds`) and, where it holds something, whether this user can write there. */
function folderLook(path: string): Holds | 'writable' | 'unwritable' {
  const held = folderHolds(path);
  if (held !== 'something') return held;
  try {
    accessSync(path, constants.W_OK);
    return 'writable';
  } catch (error) {
    return gone(error) ? 'nothing' : 'unwritable';
  }
}

/**
 * What a folder holds, by one look: `nothing` when it is missing or empty (gone meanwhile too),
 * `not a folder` when something else is there. One this user cannot list holds `something`:
 * whether it can write there decides.
 */
type Holds = 'nothing' | 'something' | 'not a folder';

function folderHolds(path: string): Holds {
  // Most folders walked through are missing ones (`~/.cursor`, a project's `.vscode`): looked at
  // first by a `stat` that makes no error for that. A failed listing costs an exception, and one
  // per missing folder was half of what the mounts cost on every sandboxed call (BENCHMARKS.md,
  // "The sandboxed line's mounts"). A folder gone before its listing still counts as absent.
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return listedHolds(path); // whatever kept it from a look, the listing meets it too
  }
  if (stats === undefined) return 'nothing';
  return stats.isDirectory() ? listedHolds(path) : 'not a folder';
}

function listedHolds(path: string): Holds {
  try {
    return readdirSync(path).length === 0 ? 'nothing' : 'something';
  } catch (error) {
    if (gone(error)) return 'nothing';
    return codeOf(error) === 'ENOTDIR' ? 'not a folder' : 'something';
  }
}

function gone(error: unknown): boolean {
  return codeOf(error) === 'ENOENT';
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Whether a place is there, by one look: followed where it is a link, and not a mount point an
 * earlier sandbox left (nor the place's stand-in, `standIn`, which a line running now holds or a
 * killed one left). Two looks (is it there? is it a left mount point?) would take a mount point
 * removed between them for a place that exists, and bind a path that is gone.
 */
function present(path: string, standIn?: string): boolean {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined || leftMountPoint(stats)) return false;
    return standIn === undefined || !isStandIn(path, stats, standIn);
  } catch {
    return false;
  }
}

/**
 * A mount point an earlier sandbox left (its command line was killed before it cleaned up): an
 * empty regular file with no write bits and one name, as bubblewrap makes them. It stands for a
 * place that does not exist, so it is blocked (and removed after) like one.
 */
export function isLeftMountPoint(path: string): boolean {
  const stats = statOf(path);
  return stats !== undefined && leftMountPoint(stats);
}

function leftMountPoint(stats: Stats): boolean {
  return stats.isFile() && stats.size === 0 && (stats.mode & 0o222) === 0 && stats.nlink === 1;
}

/** What is at `path` (not followed), or undefined for nothing, or a file where a folder is named. */
function statOf(path: string): Stats | undefined {
  try {
    // Not there is the common answer: no error is made for it.
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The paths none of which lies inside another of them. */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const path of sorted) {
    if (!kept.some((outer) => atOrBelow(path, outer))) kept.push(path);
  }
  return kept;
}

function byDepth(paths: string[]): string[] {
  const depth = new Map(paths.map((path) => [path, partsOf(path)]));
  const of = (path: string) => depth.get(path) as number;
  return paths.sort((a, b) => of(a) - of(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/*
 * Both below run for each place against each other one, on every sandboxed call: they compare
 * characters rather than make a string (`${folder}/`, a split) for each comparison.
 */

/** Whether `path` is `folder` or inside it. */
function atOrBelow(path: string, folder: string): boolean {
  return (
    path === folder ||
    (path.length > folder.length &&
      path.charCodeAt(folder.length) === SLASH &&
      path.startsWith(folder))
  );
}

/** How many parts `path` has (its slashes). */
function partsOf(path: string): number {
  let parts = 1;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) parts++;
  return parts;
}

const SLASH = 0x2f;
