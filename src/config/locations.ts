import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** `$HERMES_HOME`: the `home` option, else the environment, else `~/.hermes`. */
export function hermesHome(home?: string): string {
  return resolve(expandHome(home ?? process.env.HERMES_HOME ?? join(homedir(), '.hermes')));
}

/**
 * Why `$HERMES_HOME` cannot be used — it is a file, a file is in its path, it cannot be read — in
 * one line naming it; undefined when it can (a folder not there yet is made when first needed).
 */
export function hermesHomeProblem(home: string): string | undefined {
  try {
    if (statSync(home).isDirectory()) return undefined;
    return `HERMES_HOME ${home} is a file, not a folder; point HERMES_HOME at a folder`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') {
      return `HERMES_HOME ${home} cannot be a folder: a file is in its path; point HERMES_HOME at a folder`;
    }
    return `HERMES_HOME ${home} cannot be used: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** Where transpiled TypeScript is cached between runs. */
export function transpileCacheDir(home: string): string {
  return join(home, 'cache', 'jiti');
}

/** Where project code is kept bundled, one bundle per entry and trust record. */
export function projectBundleDir(home: string): string {
  return join(home, 'cache', 'bundles');
}

/** `~/x` → the user's home; anything else unchanged. */
export function expandHome(path: string): string {
  if (path === '~') return homedir();
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

/**
 * The project a working directory belongs to: the nearest folder at or above it that holds a
 * `.git` or a `.hermes` folder (other than `$HERMES_HOME` itself), else the working directory.
 * Project config is searched from the working directory up to here, project-local extensions
 * live in `<root>/.hermes/extensions/`, and trust is recorded for this folder.
 */
export function findProjectRoot(cwd: string, home: string): string {
  const start = resolve(cwd);
  const stop = homedir();
  let dir = start;
  for (;;) {
    // A folder in a clone; a file in a worktree or submodule.
    if (existsSync(join(dir, '.git'))) return dir;
    const local = join(dir, '.hermes');
    if (isDir(local) && !isHermesHome(local, home)) return dir;
    const parent = dirname(dir);
    if (parent === dir || dir === stop) return start;
    dir = parent;
  }
}

export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `~/.hermes` is the user's, even when this run's `$HERMES_HOME` is elsewhere. */
function isHermesHome(path: string, home: string): boolean {
  const resolved = resolve(path);
  return resolved === home || resolved === join(homedir(), '.hermes');
}
