import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { SecretFiles } from './secret-files.js';

/**
 * Entries looked at, at most, in one folder's search (the project, the home folder, a pattern's
 * folder each have their own): about 3 ms a thousand on a warm disk.
 */
export const MAX_ENTRIES = 20_000;

/**
 * Folders not searched: what package managers and git write there is theirs, not the user's
 * secrets, and `node_modules` alone can hold more entries than the whole search may look at.
 */
const NOT_SEARCHED = new Set(['node_modules', '.git']);

/** The secret files found, where they really are, and whether the search stopped short. */
export interface OnDisk {
  files: string[];
  incomplete: boolean;
}

/**
 * The secret files that exist now (README.md, In the sandbox), for the sandboxes to hide: in the
 * project (breadth first, so the files nearest the root are found however large it is), in the
 * home folder's own entries (`~/.netrc`, `~/.npmrc`: patterns without `/` name files anywhere,
 * and the home folder is where those live), and under the fixed folder of each pattern with `/`
 * (`~/.ssh/*` searches `~/.ssh`). Links are not followed into folders; a link that is itself a
 * secret file by name, or leads to one, gives the file it leads to.
 */
export function secretFilesOnDisk(
  root: string,
  secrets: SecretFiles,
  patterns: readonly string[],
): OnDisk {
  const found = new Set<string>();
  let incomplete = false;
  const consider = (path: string, entry: Dirent) => {
    if (entry.isDirectory()) return;
    const hit = entry.isSymbolicLink()
      ? secrets.secretAt(path)
      : entry.isFile()
        ? secrets.secretName(path)
        : undefined;
    if (hit === undefined) return;
    const real = realFile(path);
    if (real !== undefined) found.add(real);
  };
  /** Lists `start` and, to `depth` levels, the folders below it. */
  const search = (start: string, depth: number) => {
    let budget = MAX_ENTRIES;
    const queue: Array<[string, number]> = [[start, 0]];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [folder, level] = next;
      let entries: Dirent[];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (--budget < 0) {
          incomplete = true;
          return;
        }
        const path = join(folder, entry.name);
        consider(path, entry);
        if (entry.isDirectory() && level < depth && !NOT_SEARCHED.has(entry.name)) {
          queue.push([path, level + 1]);
        }
      }
    }
  };
  search(root, Number.POSITIVE_INFINITY);
  search(homedir(), 0);
  for (const pattern of patterns) {
    if (!pattern.includes('/')) continue;
    const path = pattern.startsWith('~/') ? homedir() + pattern.slice(1) : resolve(root, pattern);
    const fixed = fixedFolder(path);
    if (fixed === path) {
      if (secrets.secretAt(path) !== undefined) {
        const real = realFile(path);
        if (real !== undefined) found.add(real);
      }
    } else if (isAbsolute(fixed)) search(fixed, Number.POSITIVE_INFINITY);
  }
  return { files: [...found].sort(), incomplete };
}

/** The path up to its first part that holds a glob character (all of it when none does). */
function fixedFolder(path: string): string {
  const parts = path.split('/');
  const glob = parts.findIndex((part) => /[*?[{]/.test(part));
  return glob < 0 ? path : parts.slice(0, glob).join('/') || '/';
}

/** Where a file really is; undefined for a folder, or nothing at all. */
function realFile(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? undefined : real;
  } catch {
    return undefined;
  }
}
