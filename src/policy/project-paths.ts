import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Where a path a tool names really points, relative to the project root. */
export interface ProjectPath {
  /** As the tool named it. */
  given: string;
  /** Absolute, with `..`, `./` and symlinks resolved. */
  real: string;
  /** Relative to the (real) project root with `/` separators; undefined when outside it. */
  inProject: string | undefined;
  /**
   * Relative to the project root with `..` taken off the text, links not followed (what
   * `path.resolve` and a `cd` by name make of it); undefined when outside it. A tool may resolve
   * a path either way, so a guard wants both inside.
   */
  lexicalInProject: string | undefined;
}

/** A folder relative paths start from: by name, and where it really is. */
export interface PathBase {
  lexical: string;
  physical: string;
}

/**
 * Resolves a path a tool would touch against the project root as the operating system would:
 * `~`, absolute paths, and each segment in turn, so a symlink is followed where it points (even
 * when its target does not exist yet: writing through a dangling link creates the target) and a
 * `..` after a symlink climbs from the link's target, not from the link. A path that cannot be
 * resolved (a symlink loop) counts as outside the project. Relative paths start from `from`
 * (default: the root), e.g. the folder a shell command `cd`'d into.
 */
export function resolveProjectPath(
  root: string,
  given: string,
  from?: string | PathBase,
): ProjectPath {
  const expanded = given === '~' || given.startsWith('~/') ? homedir() + given.slice(1) : given;
  const base = isAbsolute(root) ? root : resolve(root);
  const start = from === undefined ? base : typeof from === 'string' ? resolve(base, from) : from;
  const [startLexical, startPhysical] =
    typeof start === 'string' ? [start, start] : [start.lexical, start.physical];
  const absolute = isAbsolute(expanded) ? expanded : `${startPhysical}/${expanded}`;
  const lexical = resolve(startLexical, expanded);
  let real: string;
  let realRoot: string;
  try {
    real = physicalPath(absolute);
    realRoot = physicalRoot(base);
  } catch {
    return { given, real: absolute, inProject: undefined, lexicalInProject: undefined };
  }
  return {
    given,
    real,
    inProject: below(realRoot, real),
    // The root may itself be reached through a link: by its name or by where it is.
    lexicalInProject: below(base, lexical) ?? below(realRoot, lexical),
  };
}

/**
 * The names of the entries of the project root, in lower case: a bare word equal to one of them
 * (`package.json`, `src`) names an existing file to a tool that runs there, as `src/a.ts` does
 * (see `looksLikePath`). A root that cannot be read has none.
 */
export function projectEntryNames(root: string): Set<string> {
  try {
    return new Set(readdirSync(root).map((name) => name.toLowerCase()));
  } catch {
    return new Set();
  }
}

/** `path` relative to `root` when it lies in it; both physical, so a prefix test is exact. */
function below(root: string, path: string): string | undefined {
  if (path === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

/**
 * Whether a project path lies in one of the folders (or is one of the files) given as
 * `plans/`, `./handoff`, … — both where it really is and where its name says (so neither
 * `plans/link/x` with `link` pointing at `src/`, nor `plans/link/../../src/x` passes). Whole
 * segments only: `plansX/a.md` is not inside `plans/`.
 */
export function isWithin(path: ProjectPath, allowed: readonly string[]): boolean {
  return inAllowed(path.inProject, allowed) && inAllowed(path.lexicalInProject, allowed);
}

function inAllowed(rel: string | undefined, allowed: readonly string[]): boolean {
  if (rel === undefined) return false;
  return allowed.some((entry) => {
    const prefix = normalizeEntry(entry);
    if (prefix === '') return true;
    return rel === prefix || rel.startsWith(`${prefix}/`);
  });
}

function normalizeEntry(entry: string): string {
  return entry
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');
}

const MAX_LINKS = 40;

/**
 * The physical path of an absolute path. The deepest part of it that exists is resolved by the
 * operating system in one call (realpath); only what lies below that part, which does not exist
 * yet (a new file, a dangling link, `missing/..`), is walked segment by segment. The walk alone
 * gives the same answer, but it costs a stat per segment on every tool call.
 */
function physicalPath(path: string): string {
  let end = path.length;
  while (end > 0) {
    const prefix = path.slice(0, end);
    const stats = lstatOf(prefix);
    if (stats !== undefined) {
      let real: string;
      try {
        real = realpathSync.native(prefix);
      } catch {
        break; // a dangling link or a loop on the way: the walk follows or refuses it
      }
      if (end === path.length) return real;
      // Below an existing folder whose next segment is missing nothing exists, so nothing is a
      // link to follow — until a `..` climbs back out. Anything else (a file with a path below
      // it, a link) is walked, which meets what the OS would meet.
      const rest = path.slice(end + 1).split('/');
      return stats.isDirectory() && !rest.includes('..')
        ? join(real, ...rest)
        : walk(real, rest, 0);
    }
    end = path.lastIndexOf('/', end - 1);
  }
  return walk('/', path.split('/'), 0);
}

/** The project root exists: the OS resolves it in one call (the general path when it cannot). */
function physicalRoot(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return physicalPath(root);
  }
}

function walk(start: string, segments: readonly string[], links: number): string {
  let current = start;
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, segment);
    if (isSymlink(next)) {
      if (links >= MAX_LINKS) throw new Error(`too many symbolic links at ${next}`);
      const target = readlinkSync(next);
      current = walk(isAbsolute(target) ? '/' : current, target.split('/'), links + 1);
    } else {
      current = next;
    }
  }
  return current;
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES: the walk meets the same error where it matters
  }
}

function isSymlink(path: string): boolean {
  // No exception for a missing path: building one per segment of a new file costs more than the rest.
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}
