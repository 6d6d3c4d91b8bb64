import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  extractToolPaths,
  isWithin,
  resolveProjectPath,
  writeTargetsOf,
} from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

const PATCH = '*** Begin Patch\n*** Add File: plans/a.md\n+x\n*** End Patch';
const nested = (depth: number, leaf: Record<string, unknown>): Record<string, unknown> =>
  depth === 0 ? leaf : { inner: nested(depth - 1, leaf) };

/**
 * One row per tool call's arguments: the paths it names for writing, and why part of it cannot
 * be tied to a file (`undefined`: every write is named). The shapes are those of the common
 * agents' and MCP servers' write tools, and of calls built to hide a write.
 */
const TARGETS: Array<[label: string, args: unknown, paths: string[], unknown?: RegExp]> = [
  // The usual shapes.
  ['Write: file_path', { file_path: 'src/a.ts', content: 'x' }, ['src/a.ts']],
  ['write_file: path', { path: 'src/a.ts', content: 'x' }, ['src/a.ts']],
  ['camelCase filePath', { filePath: 'src/a.ts', content: 'x' }, ['src/a.ts']],
  ['targetFile', { targetFile: 'src/a.ts', instructions: 'x', code_edit: 'y' }, ['src/a.ts']],
  [
    'Edit: old_string/new_string are what is written, even when they read as a patch',
    {
      file_path: 'plans/a.md',
      old_string: 'x',
      new_string: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-x\n+y',
    },
    ['plans/a.md'],
  ],
  [
    'MultiEdit: edits[] are read at depth',
    { file_path: 'a.ts', edits: [{ old_string: 'x', new_string: 'y' }] },
    ['a.ts'],
  ],
  [
    'edits[].file_path',
    { edits: [{ file_path: 'plans/a.md' }, { file_path: 'src/app.ts' }] },
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'NotebookEdit',
    { notebook_path: 'n.ipynb', cell_id: 'c1', new_source: 'print(1)', edit_mode: 'replace' },
    ['n.ipynb'],
  ],
  [
    'str_replace_editor create',
    { command: 'create', path: 'plans/a.md', file_text: 'x\ny' },
    ['plans/a.md'],
  ],
  [
    'a rename names both files',
    { old_path: 'src/app.ts', new_path: 'plans/a.md' },
    ['src/app.ts', 'plans/a.md'],
  ],
  ['a list of paths', { paths: ['plans/a.md', 'src/app.ts'] }, ['plans/a.md', 'src/app.ts']],
  [
    'a list of files as objects',
    {
      files: [
        { path: 'plans/a.md', content: 'x' },
        { path: 'src/app.ts', content: 'y' },
      ],
    },
    ['plans/a.md', 'src/app.ts'],
  ],
  ['one path named twice is listed once', { path: 'a.md', file_path: 'a.md' }, ['a.md']],
  [
    'other names that say they hold a path',
    { source_file: 'src/a.ts', output_dir: 'dist', save_location: 'x' },
    ['src/a.ts', 'dist', 'x'],
  ],
  // Argument names in any case and spelling: `newString` is `new_string`, `DST` is `dst`.
  [
    'opencode edit: oldString/newString are what is written, even when they read as a patch',
    {
      filePath: 'plans/a.md',
      oldString: 'x',
      newString: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-x\n+y',
    },
    ['plans/a.md'],
  ],
  ['a path name in upper case', { DST: 'src/a.ts' }, ['src/a.ts']],
  ['a patch name in upper case', { DIFF: 'make it better' }, [], /names no file/],
  ['nothing to write', { query: 'x', limit: 5 }, []],
  // Patches, under patch names or read from other multi-line arguments.
  ['apply_patch: input', { input: PATCH }, ['plans/a.md']],
  ['patch under `patch`', { patch: PATCH }, ['plans/a.md']],
  [
    'a patch under a name the guard does not know',
    { operations: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@' },
    ['src/app.ts'],
  ],
  ['a patch name with text that is no patch', { diff: 'make it better' }, [], /names no file/],
  [
    'a patch whose hunk has no header',
    { patch: '@@ -1 +1 @@\n-x\n+y' },
    [],
    /before any file header/,
  ],
  ['an ed script under `diff`', { diff: '1c\ny\n.' }, [], /ed command/],
  // Hostile shapes: a second write beside an allowed one, and paths hidden in the structure.
  [
    'a path in a patch beside an allowed path',
    { path: 'plans/a.md', patch: '*** Begin Patch\n*** Delete File: src/app.ts\n*** End Patch' },
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'a path deep in nested arguments',
    { path: 'plans/a.md', options: { extra: [{ target: 'src/app.ts' }] } },
    ['plans/a.md', 'src/app.ts'],
  ],
  ['arguments nested past what is read', nested(25, { path: 'src/app.ts' }), [], /nested too deep/],
  [
    'an MCP move: source is removed',
    { source: 'src/app.ts', destination: 'plans/a.md' },
    ['src/app.ts', 'plans/a.md'],
  ],
  [
    'a list under a name that says it holds paths',
    { path: 'plans/a.md', output_files: ['src/app.ts'] },
    ['plans/a.md', 'src/app.ts'],
  ],
  ['a list under a path name', { path: ['src/app.ts'], content: 'x' }, ['src/app.ts']],
  [
    'relative, absolute and traversing paths are kept as given, for the resolver',
    { paths: ['./plans/a.md', '/etc/passwd', 'plans/../src/app.ts', '~/.bashrc'] },
    ['./plans/a.md', '/etc/passwd', 'plans/../src/app.ts', '~/.bashrc'],
  ],
];

describe('writeTargetsOf', () => {
  it.each(TARGETS)('%s', (_label, args, paths, unknown) => {
    const targets = writeTargetsOf(args);
    expect(targets.paths).toEqual(paths);
    if (unknown === undefined) expect(targets.unknown).toBeUndefined();
    else expect(targets.unknown).toMatch(unknown);
    expect(extractToolPaths(args)).toEqual(paths);
  });

  it.each([null, undefined, 'src/app.ts', 42, []])('reads nothing from %j', (args) => {
    expect(writeTargetsOf(args)).toEqual({ paths: [], unknown: undefined, links: [], moves: [] });
  });
});

/**
 * What a guard that allows writes only under `plans/` makes of a call: every named path must lie
 * in `plans/` where its name says and where it really is (`isWithin` over `resolveProjectPath`).
 * The project has `plans/src-link` → `src/`, `plans/out` → a folder outside, and `plans/dangling`
 * → a file not yet written outside.
 */
type Verdict = 'allowed' | 'refused' | 'unknown' | 'no file';
function project(): string {
  const root = tree({ 'src/app.ts': 'x', 'plans/a.md': 'x' });
  const outside = tree({ 'x.md': '' });
  symlinkSync('../src', join(root, 'plans/src-link'));
  symlinkSync(outside, join(root, 'plans/out'));
  symlinkSync(join(outside, 'later.md'), join(root, 'plans/dangling'));
  return root;
}
function verdict(root: string, args: unknown): Verdict {
  const targets = writeTargetsOf(args);
  if (targets.unknown !== undefined) return 'unknown';
  if (targets.paths.length === 0) return 'no file';
  const inside = (path: string) => isWithin(resolveProjectPath(root, path), ['plans/']);
  return targets.paths.every(inside) ? 'allowed' : 'refused';
}

const VERDICTS: Array<[label: string, args: (root: string) => unknown, verdict: Verdict]> = [
  ['a new file in plans', () => ({ path: 'plans/new.md' }), 'allowed'],
  ['./ and // in the name', () => ({ path: './plans//b/./c.md' }), 'allowed'],
  ['the allowed folder itself', () => ({ path: 'plans' }), 'allowed'],
  ['absolute, inside', (root) => ({ path: join(root, 'plans/a.md') }), 'allowed'],
  ['in through a missing folder', () => ({ path: 'missing/../plans/a.md' }), 'allowed'],
  ['a source file', () => ({ file_path: 'src/app.ts' }), 'refused'],
  ['a name that only starts like plans', () => ({ path: 'plansX/a.md' }), 'refused'],
  ['traversal out of plans', () => ({ path: 'plans/../src/app.ts' }), 'refused'],
  ['deep traversal', () => ({ path: 'plans/a/b/../../../src/app.ts' }), 'refused'],
  ['absolute, outside', () => ({ path: '/etc/passwd' }), 'refused'],
  ['absolute, traversing out', (root) => ({ path: `${root}/plans/../src/app.ts` }), 'refused'],
  ['the home folder', () => ({ path: '~/.bashrc' }), 'refused'],
  ['the project root', () => ({ path: '.' }), 'refused'],
  ['an empty name', () => ({ path: '' }), 'refused'],
  [
    'a backslash is part of the name on POSIX',
    () => ({ path: 'plans\\..\\src\\app.ts' }),
    'refused',
  ],
  ['a file: URL is not a plans path', (root) => ({ path: `file://${root}/plans/a.md` }), 'refused'],
  ['through a link into src', () => ({ path: 'plans/src-link/app.ts' }), 'refused'],
  ['up from a link target', () => ({ path: 'plans/src-link/../src/app.ts' }), 'refused'],
  ['through a link out of the project', () => ({ path: 'plans/out/x.md' }), 'refused'],
  ['a dangling link whose target is outside', () => ({ path: 'plans/dangling' }), 'refused'],
  ['a rename out of plans', () => ({ old_path: 'plans/a.md', new_path: 'src/app.ts' }), 'refused'],
  [
    'a multi-edit with one source file among plans files',
    () => ({ edits: [{ file_path: 'plans/a.md' }, { file_path: 'plans/src-link/app.ts' }] }),
    'refused',
  ],
  [
    'apply_patch adding in plans',
    () => ({ input: '*** Begin Patch\n*** Add File: plans/b.md\n+x\n*** End Patch' }),
    'allowed',
  ],
  [
    'apply_patch moving a plans file into src',
    () => ({
      input: '*** Begin Patch\n*** Update File: plans/a.md\n*** Move to: src/b.ts\n*** End Patch',
    }),
    'refused',
  ],
  [
    'apply_patch deleting a source file',
    () => ({ input: '*** Begin Patch\n*** Delete File: src/app.ts\n*** End Patch' }),
    'refused',
  ],
  [
    'apply_patch adding through a traversal',
    () => ({ input: '*** Begin Patch\n*** Add File: plans/../src/b.ts\n+x\n*** End Patch' }),
    'refused',
  ],
  [
    'a git diff renaming out of plans',
    () => ({
      diff: 'diff --git a/plans/a.md b/plans/a.md\nrename from plans/a.md\nrename to src/a.ts',
    }),
    'refused',
  ],
  ['a patch that names no file', () => ({ patch: '@@ -1 +1 @@\n-x\n+y' }), 'unknown'],
  [
    'an MCP move of a source file into plans',
    () => ({ source: 'src/app.ts', destination: 'plans/b.ts' }),
    'refused',
  ],
  [
    'a list of outputs beside an allowed path',
    () => ({ path: 'plans/a.md', output_files: ['src/app.ts'] }),
    'refused',
  ],
  ['no path at all', () => ({ content: 'x' }), 'no file'],
];

describe('writeTargetsOf, resolveProjectPath and isWithin: a write confined to plans/', () => {
  it.each(VERDICTS)('%s', (_label, args, expected) => {
    const root = project();
    expect(verdict(root, args(root))).toBe(expected);
  });
});
