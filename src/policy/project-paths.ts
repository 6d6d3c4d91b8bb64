import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Where a path a tool names really points, relative to the project root. */
export interface ProjectPath {
  /** As the tool named it. */
  given: string;
  /** Absolute, with `..`, `./` and symlinks resolved. */
  real: string;
  /** Relative to the (real) project root with `/` separators; undefined when outside it. */
  inProject: string | undefined;
}

/**
 * Resolves a path a tool would touch against the project root as the operating system would:
 * `~`, absolute paths, and each segment in turn, so a symlink is followed where it points (even
 * when its target does not exist yet: writing through a dangling link creates the target) and a
 * `..` after a symlink climbs from the link's target, not from the link. A path that cannot be
 * resolved (a symlink loop) counts as outside the project.
 */
export function resolveProjectPath(root: string, given: string): ProjectPath {
  const expanded = given === '~' || given.startsWith('~/') ? homedir() + given.slice(1) : given;
  const absolute = isAbsolute(expanded) ? expanded : `${root}/${expanded}`;
  let real: string;
  let realRoot: string;
  try {
    real = physicalPath(absolute);
    realRoot = physicalPath(resolve(root));
  } catch {
    return { given, real: absolute, inProject: undefined };
  }
  const rel = relative(realRoot, real);
  const outside = rel.startsWith('..') || isAbsolute(rel);
  return { given, real, inProject: outside ? undefined : rel.split(sep).join('/') };
}

/**
 * Whether a project path lies in one of the folders (or is one of the files) given as
 * `plans/`, `./handoff`, … Whole segments only: `plansX/a.md` is not inside `plans/`.
 */
export function isWithin(path: ProjectPath, allowed: readonly string[]): boolean {
  const rel = path.inProject;
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

function physicalPath(path: string): string {
  return walk('/', path.split('/'), 0);
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

function isSymlink(path: string): boolean {
  // No exception for a missing path: building one per segment of a new file costs more than the rest.
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}
