import { spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';

/**
 * A unified diff, as git writes it, that makes `plans/l` a symbolic link to `../src` (mode 120000:
 * the content line is where it points) and then changes `plans/l/a.ts`: every path it names lies in
 * plans/, and GNU patch changes src/a.ts.
 */
const LINK_THEN_WRITE = `diff --git a/plans/l b/plans/l
new file mode 120000
index 0000000..1234567
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+../src
\\ No newline at end of file
diff --git a/plans/l/a.ts b/plans/l/a.ts
--- a/plans/l/a.ts
+++ b/plans/l/a.ts
@@ -1 +1 @@
-export const a = 1;
+export const a = 666;
`;

/** The git line names another file: GNU patch makes the link at the `+++` name. */
const OTHER_NAME = LINK_THEN_WRITE.replace(
  'diff --git a/plans/l b/plans/l',
  'diff --git a/plans/ok b/plans/ok',
);
/** A mode whose file-type bits say link, with other bits set: GNU patch makes a link. */
const OTHER_BITS = LINK_THEN_WRITE.replace('new file mode 120000', 'new file mode 120755');

/** The same shape making a new module: the link, then a file under a folder of src/ that is new. */
const LINK_THEN_MODULE = `diff --git a/plans/l b/plans/l
new file mode 120000
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+../src
\\ No newline at end of file
diff --git a/plans/l/newmod/x.ts b/plans/l/newmod/x.ts
new file mode 100644
--- /dev/null
+++ b/plans/l/newmod/x.ts
@@ -0,0 +1 @@
+x
`;

/** A regular file turned into a link (git's type change: the file deleted, a link made). */
const TYPE_CHANGE = `diff --git a/plans/m b/plans/m
deleted file mode 100644
--- a/plans/m
+++ /dev/null
@@ -1 +0,0 @@
-hello
diff --git a/plans/m b/plans/m
new file mode 120000
--- /dev/null
+++ b/plans/m
@@ -0,0 +1 @@
+../src
\\ No newline at end of file
`;

/** `old mode`/`new mode`: the same file becomes a link. */
const MODE_CHANGE = `diff --git a/plans/m b/plans/m
old mode 100644
new mode 120000
--- a/plans/m
+++ b/plans/m
@@ -1 +1 @@
-hello
+../src
\\ No newline at end of file
`;

/** A link inside plans/ to a folder inside plans/, and a file written through it: both writable. */
const LINK_INSIDE = `diff --git a/plans/l b/plans/l
new file mode 120000
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+notes
\\ No newline at end of file
diff --git a/plans/l/a.md b/plans/l/a.md
new file mode 100644
--- /dev/null
+++ b/plans/l/a.md
@@ -0,0 +1 @@
+x
`;

/** A link that stays in plans/, and a path that climbs out of it through the link: src/a.ts. */
const CLIMB_THROUGH = `diff --git a/plans/l b/plans/l
new file mode 120000
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+.
\\ No newline at end of file
--- a/plans/l/../src/a.ts
+++ b/plans/l/../src/a.ts
@@ -1 +1 @@
-export const a = 1;
+export const a = 666;
`;

/** An existing link in plans/ moved to where its relative target leads elsewhere. */
const RENAME_LINK = `diff --git a/plans/deep/x b/plans/x
similarity index 100%
rename from plans/deep/x
rename to plans/x
`;

function project() {
  const root = tree({
    '.git/HEAD': '',
    'src/a.ts': 'export const a = 1;\n',
    'src/existing/x.ts': '',
    'plans/m': 'hello\n',
    'plans/notes/.keep': '',
    'plans/deep/.keep': '',
    'plans/link.diff': LINK_THEN_WRITE,
    'plans/module.diff': LINK_THEN_MODULE,
    'handoff/newmod/x.ts': 'x\n',
    'handoff/notes.md': 'x\n',
    'lib/.keep': '',
  });
  // From plans/deep, `../src` is plans/src; moved to plans/x, it is src/.
  symlinkSync('../src', join(root, 'plans/deep/x'));
  symlinkSync('../src', join(root, 'lib/alias'));
  return root;
}

async function decide(
  root: string,
  toolName: string,
  toolArgs: Record<string, unknown>,
  config: Record<string, unknown> = {},
) {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': { sandbox: 'off', ...config } } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

type Outcome = Awaited<ReturnType<typeof decide>>;
const messageOf = (outcome: Outcome) => (outcome.blocked ? outcome.message : '');

/** Runs GNU patch as a shell would: `patch -p1 < FILE` in the project. */
function gnuPatch(root: string, file: string) {
  return spawnSync('bash', ['-c', `patch -p1 < ${file}`], { cwd: root, encoding: 'utf8' });
}

const hasPatch = spawnSync('patch', ['--version']).status === 0;

describe('workflow-guard: links a patch makes', () => {
  it.runIf(hasPatch)('GNU patch really writes src/ through the link the diff makes', () => {
    for (const diff of [LINK_THEN_WRITE, OTHER_NAME, OTHER_BITS]) {
      const root = project();
      write(root, { 'plans/x.diff': diff });
      const run = gnuPatch(root, 'plans/x.diff');
      expect(run.status, run.stderr).toBe(0);
      expect(lstatSync(join(root, 'plans/l')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(root, 'src/a.ts'), 'utf8')).toContain('666');
    }
  });

  const linkDiffs: Array<[string, string]> = [
    ['a link to src/, then a write through it', LINK_THEN_WRITE],
    ['a type change into a link to src/', TYPE_CHANGE],
    ['a mode change into a link to src/', MODE_CHANGE],
    ['a path climbing out through a link it makes', CLIMB_THROUGH],
    ['an existing link moved where it leads to src/', RENAME_LINK],
    ['a link named otherwise by its git line (GNU patch takes the +++ name)', OTHER_NAME],
    ['a link whose mode has other bits (120755)', OTHER_BITS],
  ];
  for (const [name, diff] of linkDiffs) {
    for (const [tool, args] of [
      ['patch', { patch: diff }],
      ['apply_patch', { input: diff }],
    ] as const) {
      it(`refuses ${name} without a plan (${tool})`, async () => {
        const outcome = await decide(project(), tool, args);
        expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
        expect(messageOf(outcome)).toMatch(/link/);
      });
    }
  }

  it('names the link and where it leads', async () => {
    const outcome = await decide(project(), 'patch', { patch: LINK_THEN_WRITE });
    expect(messageOf(outcome)).toContain('plans/l');
    expect(messageOf(outcome)).toContain('src');
  });

  it('lets a link through when it and everything it reaches are writable', async () => {
    const outcome = await decide(project(), 'patch', { patch: LINK_INSIDE });
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
  });

  it('follows where a link leads from where it really is, through the links on the disk', async () => {
    const root = project();
    write(root, { 'plans/a/b/.keep': '' });
    // plans/a/b/c is plans/ itself: a link made in it lies in plans/, and `../../x` from there
    // leaves the project, though by name it is plans/a/x.
    symlinkSync('../..', join(root, 'plans/a/b/c'));
    const diff = LINK_INSIDE.replaceAll('plans/l', 'plans/a/b/c/l').replace('+notes', '+../../x');
    const outcome = await decide(root, 'patch', { patch: diff });
    expect(messageOf(outcome)).toMatch(/symbolic link/);
  });

  it('refuses a link whose target it cannot read', async () => {
    const diff = LINK_INSIDE.replace('+notes\n', '+notes\n+more\n').replace(
      '@@ -0,0 +1 @@\n+notes',
      '@@ -0,0 +1,2 @@\n+notes',
    );
    const outcome = await decide(project(), 'patch', { patch: diff });
    expect(outcome.blocked).toBe(true);
  });

  it('refuses a shell patch of such a file without a plan (no sandbox)', async () => {
    const outcome = await decide(project(), 'bash', { command: 'patch -p1 < plans/link.diff' });
    expect(outcome.blocked).toBe(true);
  });
});

const MODULES = { module_roots: ['src/'] };

describe('workflow-guard module_roots: links a patch makes, with a plan', () => {
  const withPlan = () => {
    const root = project();
    write(root, { [PLAN]: '# Plan\nWork in src/planned.\n' });
    return root;
  };

  for (const [tool, args] of [
    ['patch', { patch: LINK_THEN_MODULE }],
    ['apply_patch', { input: LINK_THEN_MODULE }],
    ['bash', { command: 'patch -p1 < plans/module.diff' }],
    ['bash', { command: 'git apply plans/module.diff' }],
  ] as const) {
    it(`refuses a new module made through a link (${tool} ${JSON.stringify(args).slice(0, 40)})`, async () => {
      const outcome = await decide(withPlan(), tool, args, MODULES);
      expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
      expect(messageOf(outcome)).toContain('src/newmod');
    });
  }

  it('refuses a link that leads to a new module', async () => {
    const diff = LINK_INSIDE.replace('+notes', '+../src/newmod');
    const outcome = await decide(withPlan(), 'patch', { patch: diff }, MODULES);
    expect(messageOf(outcome)).toContain('src/newmod');
  });

  it('lets the link shape through into a module the plan names', async () => {
    const diff = LINK_THEN_MODULE.replaceAll('newmod', 'planned');
    const outcome = await decide(withPlan(), 'patch', { patch: diff }, MODULES);
    expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
  });
});

describe('workflow-guard module_roots: what a command makes in a module root, with a plan', () => {
  const withPlan = () => {
    const root = project();
    write(root, { [PLAN]: '# Plan\nWork in src/planned.\n' });
    return root;
  };

  const WAYS: Array<[string, Record<string, unknown>]> = [
    ['cp -r of a folder content', { command: 'cp -r handoff/. src' }],
    ['cp -rT', { command: 'cp -rT handoff src' }],
    ['rsync of a folder content', { command: 'rsync -a handoff/ src' }],
    ['node in src/', { command: "cd src && node -e \"require('fs').mkdirSync('newmod')\"" }],
    [
      'node with the working folder src/',
      { command: "node -e \"require('fs').mkdirSync('newmod')\"", workdir: 'src' },
    ],
    ['python3 in src/', { command: 'cd src && python3 -c "import os; os.mkdir(\'newmod\')"' }],
    ['awk in src/', { command: 'cd src && awk \'BEGIN{system("mkdir newmod")}\'' }],
    ['awk writing a file in src/', { command: 'cd src && awk \'BEGIN{print "x" > "newmod"}\'' }],
    ['a program in a folder only known when it runs', { command: 'cd "$D" && node -e 1' }],
    ['a program in src/ reached through a link', { command: 'cd lib/alias && node -e 1' }],
  ];
  for (const [name, args] of WAYS) {
    it(`refuses ${name}`, async () => {
      const outcome = await decide(withPlan(), 'bash', args, MODULES);
      expect(outcome.blocked, JSON.stringify(outcome)).toBe(true);
    });
  }

  it('names the new module a copy of a folder content makes', async () => {
    const outcome = await decide(withPlan(), 'bash', { command: 'cp -r handoff/. src' }, MODULES);
    expect(messageOf(outcome)).toContain('src/newmod');
  });

  const STILL: Array<[string, Record<string, unknown>]> = [
    ['a folder content copied outside the roots', { command: 'cp -r handoff/. plans' }],
    [
      'a program in a module',
      { command: "cd src/existing && node -e \"require('fs').mkdirSync('sub')\"" },
    ],
    ['a program at the project root', { command: 'npm test' }],
  ];
  for (const [name, args] of STILL) {
    it(`lets ${name} through`, async () => {
      const outcome = await decide(withPlan(), 'bash', args, MODULES);
      expect(outcome.blocked, JSON.stringify(outcome)).toBe(false);
    });
  }
});
