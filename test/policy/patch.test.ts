import { patchPaths, readPatch } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';

const lines = (...text: string[]) => text.join('\n');

/**
 * One row per patch text: the files it names, and why a change in it cannot be tied to a file
 * (`undefined`: every change can). A guard refuses a patch whose `unknown` is set, so a row with
 * `unknown` set is one that must not get through.
 */
const PATCHES: Array<[label: string, text: string, paths: string[], unknown?: RegExp]> = [
  // Codex's apply_patch envelope.
  [
    'apply_patch: Add File',
    lines('*** Begin Patch', '*** Add File: plans/a.md', '+x', '*** End Patch'),
    ['plans/a.md'],
  ],
  [
    'apply_patch: Update File',
    lines('*** Begin Patch', '*** Update File: src/app.ts', '@@', '-x', '+y', '*** End Patch'),
    ['src/app.ts'],
  ],
  [
    'apply_patch: Delete File',
    lines('*** Begin Patch', '*** Delete File: src/app.ts', '*** End Patch'),
    ['src/app.ts'],
  ],
  [
    'apply_patch: Update then Move to names both files',
    lines(
      '*** Begin Patch',
      '*** Update File: plans/a.md',
      '*** Move to: src/app.ts',
      '@@',
      '-x',
      '+y',
      '*** End Patch',
    ),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'apply_patch: an allowed file first, a source file after',
    lines(
      '*** Begin Patch',
      '*** Add File: plans/a.md',
      '+x',
      '*** Delete File: src/app.ts',
      '*** End Patch',
    ),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'apply_patch: markers in other case and spacing',
    lines('***  begin patch', '***ADD FILE :plans/a.md', '*** delete   file:   src/app.ts  '),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'apply_patch: markers indented (Codex trims each line)',
    lines('  *** Begin Patch', '\t*** Update File: src/app.ts', '  *** Move to: plans/x.md'),
    ['src/app.ts', 'plans/x.md'],
  ],
  [
    'apply_patch: a traversal is kept as written, for the resolver',
    lines('*** Begin Patch', '*** Add File: plans/../src/app.ts', '+x', '*** End Patch'),
    ['plans/../src/app.ts'],
  ],
  [
    'apply_patch: an absolute name',
    lines('*** Begin Patch', '*** Update File: /etc/passwd', '*** End Patch'),
    ['/etc/passwd'],
  ],
  [
    'apply_patch: CRLF line ends',
    '*** Begin Patch\r\n*** Delete File: src/app.ts\r\n*** End Patch\r\n',
    ['src/app.ts'],
  ],
  [
    'apply_patch: a marker that names no file',
    lines('*** Begin Patch', '*** Delete File:', '*** End Patch'),
    [],
    /names no file/,
  ],
  [
    'apply_patch: an unknown marker',
    lines('*** Begin Patch', '***Remove File: src/app.ts', '*** End Patch'),
    [],
    /not understood/,
  ],
  // Unified diffs.
  [
    'unified: git prefixes stripped',
    lines('--- a/src/app.ts', '+++ b/src/app.ts', '@@ -1 +1 @@', '-x', '+y'),
    ['src/app.ts'],
  ],
  [
    'unified: a new file from /dev/null',
    lines('--- /dev/null', '+++ b/plans/new.md', '@@ -0,0 +1 @@', '+x'),
    ['plans/new.md'],
  ],
  [
    'unified: a deleted file to /dev/null',
    lines('--- a/src/app.ts', '+++ /dev/null', '@@ -1 +0,0 @@', '-x'),
    ['src/app.ts'],
  ],
  [
    'unified: old and new names differ, both listed',
    lines('--- plans/a.md', '+++ src/app.ts', '@@ -1 +1 @@', '-x', '+y'),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'unified: one side without a git prefix keeps both as written',
    lines('--- plans/a.md', '+++ b/src/app.ts', '@@ -1 +1 @@'),
    ['plans/a.md', 'b/src/app.ts'],
  ],
  [
    'unified: a timestamp after a tab is not part of the name',
    lines(
      '--- src/app.ts\t2024-01-01 00:00:00',
      '+++ src/app.ts\t2024-01-02 00:00:00',
      '@@ -1 +1 @@',
    ),
    ['src/app.ts'],
  ],
  [
    'unified: a quoted name with an escape',
    lines('--- "a/plans/x\\"y.md"', '+++ "b/plans/x\\"y.md"', '@@ -1 +1 @@'),
    ['plans/x"y.md'],
  ],
  [
    'unified: a second file after a first allowed one',
    lines(
      '--- a/plans/a.md',
      '+++ b/plans/a.md',
      '@@ -1 +1 @@',
      '-x',
      '+y',
      '--- a/src/app.ts',
      '+++ b/src/app.ts',
      '@@ -1 +1 @@',
      '-x',
      '+y',
    ),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'unified: a traversal in the new name',
    lines('--- a/plans/a.md', '+++ b/plans/../src/app.ts', '@@ -1 +1 @@'),
    ['plans/a.md', 'plans/../src/app.ts'],
  ],
  [
    'unified: a hunk before any header',
    lines('@@ -1 +1 @@', '-x', '+y'),
    [],
    /before any file header/,
  ],
  [
    'unified: a hunk before the first header is noted though a header follows',
    lines('@@ -1 +1 @@', '-x', '+y', '--- a/plans/a.md', '+++ b/plans/a.md', '@@ -1 +1 @@'),
    ['plans/a.md'],
    /before any file header/,
  ],
  // git's extended headers.
  [
    'git: diff --git names both sides',
    lines('diff --git a/src/app.ts b/src/app.ts', 'index 1..2 100644'),
    ['src/app.ts'],
  ],
  [
    'git: a rename by header only (no hunk)',
    lines(
      'diff --git a/plans/a.md b/src/app.ts',
      'similarity index 100%',
      'rename from plans/a.md',
      'rename to src/app.ts',
    ),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'git: a copy',
    lines('diff --git a/plans/a.md b/plans/b.md', 'copy from plans/a.md', 'copy to src/app.ts'),
    ['plans/a.md', 'plans/b.md', 'src/app.ts'],
  ],
  [
    'git: quoted names with spaces',
    lines('diff --git "a/plans/x y.md" "b/src/x y.ts"'),
    ['plans/x y.md', 'src/x y.ts'],
  ],
  [
    'git: unquoted names that hold " b/" twice cannot be split',
    lines('diff --git a/x b/y b/z', '--- a/x b/y', '+++ b/z'),
    ['x b/y', 'z'],
    /cannot be read/,
  ],
  // Context diffs, Index: lines, normal diffs and ed scripts.
  [
    'context diff: both header names',
    lines(
      '*** plans/a.md\t2024',
      '--- src/app.ts\t2024',
      '***************',
      '*** 1 ****',
      '--- 1 ----',
    ),
    ['plans/a.md', 'src/app.ts'],
  ],
  [
    'Index: GNU patch may take the name from it',
    lines('Index: src/app.ts', '===', '--- plans/a.md', '+++ plans/a.md', '@@ -1 +1 @@'),
    ['src/app.ts', 'plans/a.md'],
  ],
  [
    'Index: indented, as GNU patch reads an indented patch (POSIX mode then patches that file)',
    lines('  Index: src/app.ts', '  --- plans/none.md', '  +++ plans/none.md', '  @@ -1 +1 @@'),
    ['src/app.ts', 'plans/none.md'],
  ],
  [
    'a normal diff names no file',
    lines('1c1', '< x', '---', '> y'),
    [],
    /normal diff or ed command/,
  ],
  ['an ed script names no file', lines('1,3d', 'w'), [], /normal diff or ed command/],
];

describe('readPatch', () => {
  it.each(PATCHES)('%s', (_label, text, paths, unknown) => {
    const patch = readPatch(text);
    expect(patch.paths).toEqual(paths);
    if (unknown === undefined) expect(patch.unknown).toBeUndefined();
    else expect(patch.unknown).toMatch(unknown);
    expect(patch.isPatch).toBe(true);
    expect(patchPaths(text)).toEqual(paths);
  });

  /** Text that is no patch: nothing in it is a file, and nothing is unknown. */
  it.each([
    ['prose', 'Fix the login bug.\nThen run the tests.'],
    ['markdown with rules and stars', '# Plan\n\n---\n\n*** note ***\n- a\n+ b'],
    ['a single header line', '--- not followed by +++'],
    ['`rename to` outside a git diff', 'rename to src/app.ts'],
    ['empty', ''],
  ])('%s is not a patch', (_label, text) => {
    expect(readPatch(text)).toEqual({
      paths: [],
      unknown: undefined,
      isPatch: false,
      links: [],
      moves: [],
    });
  });
});

describe('readPatch: links and moves of a git diff', () => {
  const link = (header: string, body = '+../src\n\\ No newline at end of file\n') =>
    `diff --git a/plans/l b/plans/l\n${header}\n--- /dev/null\n+++ b/plans/l\n@@ -0,0 +1 @@\n${body}`;

  it.each([
    ['a new link', 'new file mode 120000'],
    ['a file turned into a link', 'old mode 100644\nnew mode 120000'],
    ['a link changed (its mode on the index line)', 'index 1234567..89abcde 120000'],
    ['a mode with other bits, which GNU patch and git apply make a link', 'new file mode 120755'],
  ])('%s: the link and where it leads', (_label, header) => {
    expect(readPatch(link(header)).links).toEqual([{ path: 'plans/l', target: '../src' }]);
  });

  it('a regular file is no link, and a plain diff after a link is a file of its own', () => {
    expect(readPatch(link('new file mode 100644')).links).toEqual([]);
    const text = `${link('new file mode 120000')}--- a/plans/l/a.ts\n+++ b/plans/l/a.ts\n@@ -1 +1 @@\n-a\n+b\n`;
    const patch = readPatch(text);
    expect(patch.links).toEqual([{ path: 'plans/l', target: '../src' }]);
    expect(patch.paths).toContain('plans/l/a.ts');
  });

  it('a link line without `\\ No newline at end of file` keeps its newline, as GNU patch writes it', () => {
    expect(readPatch(link('new file mode 120000', '+../src\n')).links).toEqual([
      { path: 'plans/l', target: '../src\n' },
    ]);
  });

  it('a link is at every name its section gives, as GNU patch may take any', () => {
    const text = link('new file mode 120000').replace('+++ b/plans/l', '+++ b/plans/other');
    expect(readPatch(text).links).toEqual([
      { path: 'plans/l', target: '../src' },
      { path: 'plans/other', target: '../src' },
    ]);
  });

  it('a link whose text is not one line is unknown', () => {
    const patch = readPatch(link('new file mode 120000', '+../src\n+more\n'));
    expect(patch.unknown).toMatch(/symbolic link plans\/l/);
  });

  it('renames and copies', () => {
    const text =
      'diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\ndiff --git a/c b/d\ncopy from c\ncopy to d\n';
    expect(readPatch(text).moves).toEqual([
      { from: 'a', to: 'b' },
      { from: 'c', to: 'd' },
    ]);
  });
});

describe('readPatch with the strip level of the command that applies it', () => {
  const unified = lines(
    '--- a/.hermes/config.yaml',
    '+++ b/.hermes/config.yaml',
    '@@ -1 +1 @@',
    '-a',
    '+b',
  );
  const git = lines(
    'diff --git a/x/.hermes/config.yaml b/x/.hermes/config.yaml',
    'rename from x/old.yaml',
    'rename to x/.hermes/config.yaml',
  );

  it.each([
    [unified, 0, ['a/.hermes/config.yaml', 'b/.hermes/config.yaml']],
    [unified, 1, ['.hermes/config.yaml']],
    [unified, 2, ['config.yaml']],
    [git, 1, ['x/.hermes/config.yaml', 'x/old.yaml']],
    [git, 2, ['.hermes/config.yaml', 'old.yaml']],
  ] as const)('%#: -p%s lands the names where the program puts them', (text, strip, paths) => {
    const patch = readPatch(text, { strip });
    expect(patch.unknown).toBeUndefined();
    expect(patch.paths).toEqual(paths);
  });

  it('lists the base name and the whole name without -p (GNU patch takes either)', () => {
    expect(readPatch(unified, { strip: 'base' }).paths).toEqual([
      'a/.hermes/config.yaml',
      'config.yaml',
      'b/.hermes/config.yaml',
    ]);
  });

  it('does not understand a name with fewer folders than the strip level', () => {
    expect(readPatch(unified, { strip: 3 }).unknown).toMatch(
      /a\/\.hermes\/config\.yaml has fewer than 3 folders to strip \(-p3\)/,
    );
  });
});
