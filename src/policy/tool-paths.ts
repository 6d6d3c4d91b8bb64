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

/**
 * Every path a tool call names for writing: under the usual argument names at any depth (a
 * multi-edit's `edits[].file_path` too), and inside patch text in any string argument — `*** Add
 * / Update / Delete File:` and `*** Move to:` blocks, and unified-diff `---`/`+++` header pairs
 * and `diff --git` lines.
 */
export function extractToolPaths(args: unknown): string[] {
  const found: string[] = [];
  collect(args, found, 0);
  return [...new Set(found)];
}

function collect(value: unknown, found: string[], depth: number): void {
  if (depth > 20 || value === null || typeof value !== 'object') return;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') {
      if (PATH_KEYS.has(key)) found.push(item);
      found.push(...patchPaths(item));
    } else if (Array.isArray(item) && PATH_LIST_KEYS.has(key)) {
      for (const entry of item) if (typeof entry === 'string') found.push(entry);
      collect(item, found, depth + 1);
    } else {
      collect(item, found, depth + 1);
    }
  }
}

const APPLY_PATCH = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/;
const GIT_DIFF = /^diff --git ("?a\/.+?"?) ("?b\/.+?"?)$/;
const RENAME = /^(?:rename|copy) (?:from|to) (.+)$/;

export function patchPaths(text: string): string[] {
  if (!text.includes('\n')) return [];
  const lines = text.split(/\r?\n/);
  const paths: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const applied = APPLY_PATCH.exec(line);
    if (applied) {
      paths.push((applied[1] as string).trim());
      continue;
    }
    const git = GIT_DIFF.exec(line);
    if (git) {
      paths.push(stripPrefix(git[1] as string), stripPrefix(git[2] as string));
      continue;
    }
    const rename = RENAME.exec(line);
    if (rename && lines.some((l) => l.startsWith('diff --git '))) {
      paths.push((rename[1] as string).trim());
      continue;
    }
    // A unified-diff header is a `---` line directly followed by a `+++` line.
    const next = lines[i + 1];
    if (line.startsWith('--- ') && next?.startsWith('+++ ')) {
      const [from, to] = [line, next].map((h) => h.slice(4).split('\t')[0]?.trim() ?? '');
      // git's `a/` and `b/` prefixes, stripped as `git apply` does, only when both sides use them.
      const git = [from, to].every((p) => p === '/dev/null' || /^"?[ab]\//.test(p ?? ''));
      for (const path of [from, to]) {
        if (path === undefined || path === '' || path === '/dev/null') continue;
        paths.push(git ? stripPrefix(path) : path);
      }
      i++;
    }
  }
  return paths;
}

function stripPrefix(path: string): string {
  const unquoted = path.replace(/^"(.*)"$/, '$1');
  return /^[ab]\//.test(unquoted) ? unquoted.slice(2) : unquoted;
}
