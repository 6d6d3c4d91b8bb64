/**
 * What the name of a tool argument says it holds. Names are compared without regard to case,
 * `_` or `-` (`file_path`, `filePath`, `FILE_PATH` and `File-Path` are one name): tools spell the
 * same argument all these ways, and a name the guard knows in one spelling is known in all.
 */
export const argumentName = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

const names = (...list: string[]): ReadonlySet<string> => new Set(list.map(argumentName));

/** Argument names under which tools pass the file they write. */
export const PATH_KEYS = names(
  'path',
  'file_path',
  'filepath',
  'filename',
  'file',
  'target',
  'target_file',
  'target_path',
  'destination',
  'dest',
  'dst',
  'destination_path',
  'new_path',
  'old_path',
  'output',
  'output_path',
  'outfile',
  'notebook_path',
  'directory',
  'dir',
);

/** Argument names under which tools pass several files. */
export const PATH_LIST_KEYS = names('paths', 'files', 'file_paths', 'targets', 'filenames');

/** Argument names under which tools pass patch or diff text. */
export const PATCH_KEYS = names('patch', 'diff', 'patch_text', 'input', 'changes');

/**
 * Argument names under which tools pass what is written, or words about it, not where: text
 * under them is never read as a path or a patch (a plan that names `src/a.ts` is a plan).
 */
export const CONTENT_KEYS = names(
  'content',
  'contents',
  'text',
  'file_text',
  'new_string',
  'old_string',
  'new_str',
  'old_str',
  'new_text',
  'old_text',
  'new_source',
  'replacement',
  'code_edit',
  'instruction',
  'instructions',
  'description',
  'explanation',
  'cell_id',
  'cell_type',
  'edit_mode',
  'encoding',
  'mode',
);

/**
 * An argument whose name says it holds a path, though it is not one of PATH_KEYS: a move's
 * `source`/`src` too (the file it removes), not only its destination.
 */
export const PATH_LIKE_NAME = /path|file|dir|folder|dest|target|output|location|^source$|^src$/i;

/**
 * Whether the guard knows what an argument of this name holds. Only a word is a name: a key such
 * as `file:///src/a.ts` or `src/path.ts` is a file name, whatever words are in it.
 */
export function isKnownArgumentName(key: string): boolean {
  if (!/^[a-z][a-z0-9_-]*$/i.test(key)) return false;
  const name = argumentName(key);
  return (
    PATH_KEYS.has(name) ||
    PATH_LIST_KEYS.has(name) ||
    PATCH_KEYS.has(name) ||
    CONTENT_KEYS.has(name) ||
    PATH_LIKE_NAME.test(key)
  );
}
