import {
  argumentName,
  CONTENT_KEYS,
  PATCH_KEYS,
  PATH_KEYS,
  PATH_LIKE_NAME,
  PATH_LIST_KEYS,
} from './argument-names.js';
import { type PatchLink, type PatchMove, readPatch } from './patch.js';

/** The files a tool call would write, and why some could not be identified. */
export interface WriteTargets {
  paths: string[];
  /** Set when part of the call changes files that cannot be named (a patch hunk without a header, an ed script). */
  unknown: string | undefined;
  /** The symbolic links its patch text makes, and the files it renames or copies (patch-links.ts). */
  links: PatchLink[];
  moves: PatchMove[];
}

/**
 * Every path a tool call names for writing: under the usual argument names at any depth (a
 * multi-edit's `edits[].file_path` too), under other names that say they hold a path
 * (`source_file`, `output_dir`, a move's `source`; one name or a list of them), and inside patch text — under the patch argument names, and in
 * any other multi-line argument that reads as a patch (see `readPatch`). Text under content
 * names (`content`, `new_string`, …) is what is written, not where, and is not read as a patch.
 */
export function writeTargetsOf(args: unknown): WriteTargets {
  const found: WriteTargets = { paths: [], unknown: undefined, links: [], moves: [] };
  collect(args, found, 0);
  return { ...found, paths: [...new Set(found.paths)] };
}

/** The paths of `writeTargetsOf`. */
export function extractToolPaths(args: unknown): string[] {
  return writeTargetsOf(args).paths;
}

function collect(value: unknown, found: WriteTargets, depth: number): void {
  if (depth > 20) {
    found.unknown ??= 'its arguments are nested too deep to read';
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    const name = argumentName(key);
    if (typeof item === 'string') {
      if (PATH_KEYS.has(name)) found.paths.push(item);
      else if (PATCH_KEYS.has(name)) addPatch(item, found, true);
      else if (CONTENT_KEYS.has(name)) continue;
      else if (item.includes('\n')) addPatch(item, found, false);
      else if (PATH_LIKE_NAME.test(key)) found.paths.push(item);
    } else if (Array.isArray(item) && namesPaths(key)) {
      for (const entry of item) if (typeof entry === 'string') found.paths.push(entry);
      collect(item, found, depth + 1);
    } else {
      collect(item, found, depth + 1);
    }
  }
}

/** Whether a list under `key` is a list of paths (`paths`, `output_files`, a path name). */
function namesPaths(key: string): boolean {
  const name = argumentName(key);
  return (
    PATH_LIST_KEYS.has(name) ||
    PATH_KEYS.has(name) ||
    (!CONTENT_KEYS.has(name) && !PATCH_KEYS.has(name) && PATH_LIKE_NAME.test(key))
  );
}

function addPatch(text: string, found: WriteTargets, isPatchKey: boolean): void {
  const patch = readPatch(text);
  if (!patch.isPatch && !isPatchKey) return;
  found.paths.push(...patch.paths);
  found.links.push(...patch.links);
  found.moves.push(...patch.moves);
  if (patch.unknown) found.unknown ??= `its patch cannot be read: ${patch.unknown}`;
  else if (isPatchKey && patch.paths.length === 0) {
    found.unknown ??= 'its patch names no file (not a patch format the guard reads)';
  }
}

/** The files a patch text names (see `readPatch` for what it reads). */
export function patchPaths(text: string): string[] {
  return readPatch(text).paths;
}
