import { readPatch } from './patch.js';

/** Argument names under which tools pass the file they write. */
const PATH_KEYS = new Set([
  'path',
  'file_path',
  'filePath',
  'filepath',
  'filename',
  'fileName',
  'file',
  'target',
  'target_file',
  'targetFile',
  'target_path',
  'targetPath',
  'destination',
  'dest',
  'dst',
  'destination_path',
  'destinationPath',
  'new_path',
  'newPath',
  'old_path',
  'oldPath',
  'output',
  'output_path',
  'outputPath',
  'outfile',
  'out_file',
  'notebook_path',
  'directory',
  'dir',
]);
/** Argument names under which tools pass several files. */
const PATH_LIST_KEYS = new Set([
  'paths',
  'files',
  'file_paths',
  'filePaths',
  'targets',
  'filenames',
]);

/** Argument names under which tools pass patch or diff text. */
const PATCH_KEYS = new Set(['patch', 'diff', 'patch_text', 'patchText', 'input', 'changes']);
/** Argument names under which tools pass what is written, not where. */
const CONTENT_KEYS = new Set([
  'content',
  'contents',
  'text',
  'file_text',
  'new_string',
  'old_string',
  'new_str',
  'old_str',
  'new_source',
  'replacement',
  'description',
  'explanation',
  'cell_id',
  'cell_type',
  'edit_mode',
  'encoding',
  'mode',
]);
/**
 * An argument whose name says it holds a path, though it is not one of PATH_KEYS: a move's
 * `source`/`src` too (the file it removes), not only its destination.
 */
const PATH_LIKE_NAME = /path|file|dir|folder|dest|target|output|location|^source$|^src$/i;

/** The files a tool call would write, and why some could not be identified. */
export interface WriteTargets {
  paths: string[];
  /** Set when part of the call changes files that cannot be named (a patch hunk without a header, an ed script). */
  unknown: string | undefined;
}

/**
 * Every path a tool call names for writing: under the usual argument names at any depth (a
 * multi-edit's `edits[].file_path` too), under other names that say they hold a path
 * (`source_file`, `output_dir`, a move's `source`; one name or a list of them), and inside patch text — under the patch argument names, and in
 * any other multi-line argument that reads as a patch (see `readPatch`). Text under content
 * names (`content`, `new_string`, …) is what is written, not where, and is not read as a patch.
 */
export function writeTargetsOf(args: unknown): WriteTargets {
  const found: WriteTargets = { paths: [], unknown: undefined };
  collect(args, found, 0);
  return { paths: [...new Set(found.paths)], unknown: found.unknown };
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
    if (typeof item === 'string') {
      if (PATH_KEYS.has(key)) found.paths.push(item);
      else if (PATCH_KEYS.has(key)) addPatch(item, found, true);
      else if (CONTENT_KEYS.has(key)) continue;
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
  return (
    PATH_LIST_KEYS.has(key) ||
    PATH_KEYS.has(key) ||
    (!CONTENT_KEYS.has(key) && !PATCH_KEYS.has(key) && PATH_LIKE_NAME.test(key))
  );
}

function addPatch(text: string, found: WriteTargets, isPatchKey: boolean): void {
  const patch = readPatch(text);
  if (!patch.isPatch && !isPatchKey) return;
  found.paths.push(...patch.paths);
  if (patch.unknown) found.unknown ??= `its patch cannot be read: ${patch.unknown}`;
  else if (isPatchKey && patch.paths.length === 0) {
    found.unknown ??= 'its patch names no file (not a patch format the guard reads)';
  }
}

/** The files a patch text names (see `readPatch` for what it reads). */
export function patchPaths(text: string): string[] {
  return readPatch(text).paths;
}
