import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * Where the managed layer lives (docs/teams.md, Managed policy): the organisation's config and
 * extensions, above the user's and the project's. The agent runs as the user and may set the
 * environment of the hook's process, so nothing the user can write or set moves it:
 *
 * - by default the system's folder, `/etc/hermes-extensions` (Linux and other POSIX systems) or
 *   `/Library/Application Support/hermes-extensions` (macOS);
 * - or the folder an admin names, one absolute path, in the file `managed-location` at the root
 *   of the installed package. It counts only when it is a plain file (no link), owned by root and
 *   writable by no one else, in a folder owned by root and writable by no one else: a file the
 *   user could write, or put there, would let the agent move the policy off. No environment
 *   variable is ever read for it.
 *
 * The process reads it once; what it found holds for the process's life (a daemon's too).
 */
export interface ManagedLocation {
  /** The managed folder: `config.yaml` and `extensions/` in it. */
  readonly dir: string;
  /** How it was chosen. */
  readonly from: 'system' | 'package' | 'test';
  /** A `managed-location` file there that was refused, and why (the system folder is used). */
  readonly refused?: string;
}

/** The file in the package's root an admin writes to name another managed folder. */
export const LOCATION_FILE = 'managed-location';

/** The managed layer's config file, in its folder. */
export function managedConfigFile(location: ManagedLocation): string {
  return join(location.dir, 'config.yaml');
}

/** The managed layer's own extensions, loaded as the user's global ones are. */
export function managedExtensionsDir(location: ManagedLocation): string {
  return join(location.dir, 'extensions');
}

/** The system's managed folder on this platform. */
export function systemManagedDir(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin'
    ? '/Library/Application Support/hermes-extensions'
    : '/etc/hermes-extensions';
}

/**
 * The seam tests use to point a process at a managed folder in a temporary one: a value code
 * running in the process puts on `globalThis` before the framework first looks (a `--import`
 * preload of the test suite). Nothing of a real install sets it, and the agent cannot reach it:
 * the installed hook command unsets `NODE_OPTIONS` (src/host/command-hook/hook-wrapper.ts), so
 * only a changed command line could preload code — and code in the hook's process could switch
 * off any guard anyway. Read once, like the rest, so an extension's code cannot move it later.
 */
export const TEST_LOCATION = Symbol.for('hermes-extensions.managed-location.test');

let found: ManagedLocation | undefined;

/** This process's managed location (see ManagedLocation), found on the first call. */
export function managedLocation(): ManagedLocation {
  found ??= findManagedLocation();
  return found;
}

function findManagedLocation(): ManagedLocation {
  const pinned = (globalThis as Record<symbol, unknown>)[TEST_LOCATION];
  if (typeof pinned === 'string' && isAbsolute(pinned)) return { dir: pinned, from: 'test' };
  return locationFrom(join(PACKAGE_ROOT, LOCATION_FILE), systemManagedDir());
}

/**
 * The folder `file` names when it may be believed, else `fallback` (with why `file` was refused
 * when there is one). Exported for its tests.
 */
export function locationFrom(file: string, fallback: string): ManagedLocation {
  let stats: Stats;
  try {
    stats = lstatSync(file);
  } catch {
    return { dir: fallback, from: 'system' };
  }
  const refuse = (why: string): ManagedLocation => ({
    dir: fallback,
    from: 'system',
    refused: `${file} is ignored: ${why}; the managed folder is ${fallback}`,
  });
  if (!stats.isFile()) return refuse('it is not a plain file (a link is not followed)');
  // Empty names nothing: what a sandbox leaves where it blocked the missing file (ground-mounts.ts).
  if (stats.size === 0) return { dir: fallback, from: 'system' };
  const problem =
    notAdminOnly(stats, 'it') ?? notAdminOnly(lstatOrUndefined(dirname(file)), 'its folder');
  if (problem) return refuse(problem);
  const named = readFileSync(file, 'utf8').trim();
  if (!isAbsolute(named) || named.includes('\n')) {
    return refuse('it must hold one absolute path');
  }
  return { dir: resolve(named), from: 'package' };
}

/** Why a file or folder is not the admin's alone: not root's, or writable by group or others. */
function notAdminOnly(stats: Stats | undefined, what: string): string | undefined {
  if (stats === undefined) return `${what} cannot be read`;
  if (stats.uid !== 0) return `${what} is not owned by root (uid ${stats.uid})`;
  if ((stats.mode & 0o022) !== 0) return `${what} is writable by its group or by others`;
  return undefined;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
