import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';
/** Names src/planned and ./src/dotted/; src/newmod only as a prefix, or inside other paths. */
const PLAN_TEXT = `# Plan
1. Add the payments module in src/planned (its API first).
2. Then ./src/dotted/ for the helpers.
Later maybe src/newmodule; see mysrc/inword and lib/src/deep for the old code.
`;

function project() {
  const root = tree({
    'src/app.ts': 'export const app = 1;\n',
    'src/existing/x.ts': '',
    'packages/core/index.ts': '',
    'lib/util.ts': '',
    'plans/new.diff': '--- /dev/null\n+++ b/src/newmod/x.ts\n@@ -0,0 +1 @@\n+x\n',
    'plans/ok.diff': '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n',
    'plans/deep.diff': '--- /dev/null\n+++ q/r/src/newmod/x.ts\n@@ -0,0 +1 @@\n+x\n',
    'plans/dir.diff':
      'diff --git a/newmod/x.ts b/newmod/x.ts\n--- /dev/null\n+++ b/newmod/x.ts\n@@ -0,0 +1 @@\n+x\n',
    [PLAN]: PLAN_TEXT,
  });
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
    config: {
      extensions: { 'workflow-guard': { module_roots: ['src/', 'packages/'], ...config } },
    },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

type Outcome = Awaited<ReturnType<typeof decide>>;
/** The block message ('' when not blocked). */
const messageOf = (outcome: Outcome) => (outcome.blocked ? outcome.message : '');
/** The approval asked for, if any. */
const askOf = (outcome: Outcome) => (outcome.blocked ? undefined : outcome.ask);

const withProject = (root: string, args: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(args).replaceAll('/PROJECT', root));

const patch = (body: string) => ({ patch: `*** Begin Patch\n${body}\n*** End Patch` });

/** Ways to create src/newmod (a folder the plan does not name) with a plan: each is refused, naming it. */
const NEW_MODULE: Array<[string, string, Record<string, unknown>]> = [
  ['a write into it', 'write', { path: 'src/newmod/x.ts', content: 'x' }],
  ['dot segments', 'write', { path: './src/./newmod/x.ts' }],
  ['a doubled slash', 'write', { path: 'src//newmod/x.ts' }],
  ['a climb out of an existing module', 'write', { path: 'src/existing/../newmod/x.ts' }],
  ['an absolute path', 'write', { path: '/PROJECT/src/newmod/x.ts' }],
  ['a link to src from elsewhere', 'write', { path: 'lib/alias/newmod/x.ts' }],
  ['an edit', 'edit', { file_path: 'src/newmod/x.ts', old_string: '', new_string: 'x' }],
  ['create_directory', 'create_directory', { path: 'src/newmod' }],
  ['an MCP tool that makes folders', 'mcp__fs__create_directory', { path: 'src/newmod' }],
  ['moving a module folder', 'move_file', { source: 'src/existing', destination: 'src/newmod' }],
  ['a patch adding a file', 'apply_patch', patch('*** Add File: src/newmod/x.ts\n+x')],
  [
    'a patch moving a file',
    'apply_patch',
    patch('*** Update File: src/app.ts\n*** Move to: src/newmod/app.ts\n@@\n-a\n+b'),
  ],
  [
    'a unified diff adding a file',
    'patch',
    { diff: '--- /dev/null\n+++ b/src/newmod/x.ts\n@@ -0,0 +1 @@\n+x\n' },
  ],
  [
    'a git rename into it',
    'patch',
    {
      patch:
        'diff --git a/src/existing/x.ts b/src/newmod/x.ts\nrename from src/existing/x.ts\nrename to src/newmod/x.ts\n',
    },
  ],
  ['mkdir', 'bash', { command: 'mkdir src/newmod' }],
  ['mkdir -p with depth', 'bash', { command: 'mkdir -p src/newmod/deep' }],
  ['mkdir -p beside an existing one', 'bash', { command: 'mkdir -p src/existing src/newmod' }],
  ['cd then mkdir', 'bash', { command: 'cd src && mkdir newmod' }],
  ['cd then mkdir ./', 'bash', { command: 'cd src && mkdir -p ./newmod' }],
  ['a working folder argument', 'bash', { command: 'mkdir newmod', workdir: 'src' }],
  ['an argument vector', 'bash', { command: ['mkdir', '-p', 'src/newmod'] }],
  ['a redirection', 'bash', { command: 'echo x > src/newmod/x.ts' }],
  ['tee', 'bash', { command: 'echo x | tee src/newmod/x.ts' }],
  ['touch', 'bash', { command: 'touch src/newmod/x.ts' }],
  ['truncate', 'bash', { command: 'truncate -s 0 src/newmod/x.ts' }],
  ['install -d', 'bash', { command: 'install -d src/newmod' }],
  ['install -D', 'bash', { command: 'install -D -m 644 src/app.ts src/newmod/app.ts' }],
  ['cp -r', 'bash', { command: 'cp -r src/existing src/newmod' }],
  ['cp into a trailing slash', 'bash', { command: 'cp src/app.ts src/newmod/' }],
  ['cp -t', 'bash', { command: 'cp -t src/newmod src/app.ts' }],
  ['mv of a folder', 'bash', { command: 'mv src/existing src/newmod' }],
  ['git mv', 'bash', { command: 'git mv src/existing src/newmod' }],
  ['ln -s', 'bash', { command: 'ln -s ../lib src/newmod' }],
  ['rsync', 'bash', { command: 'rsync -a src/existing/ src/newmod' }],
  ['git clone into it', 'bash', { command: 'git clone https://example.com/x.git src/newmod' }],
  [
    'git clone named after the repo',
    'bash',
    { command: 'cd src && git clone https://example.com/newmod.git' },
  ],
  ['git worktree', 'bash', { command: 'git worktree add src/newmod' }],
  ['bash -c', 'bash', { command: 'bash -c "mkdir src/newmod"' }],
  ['sh -c with cd', 'bash', { command: "sh -c 'cd src && mkdir newmod'" }],
  ['env wrapper', 'bash', { command: 'env mkdir src/newmod' }],
  ['sudo wrapper', 'bash', { command: 'sudo -u me mkdir src/newmod' }],
  ['timeout wrapper', 'bash', { command: 'timeout 5 mkdir src/newmod' }],
  ['a program by its path', 'bash', { command: '/bin/mkdir src/newmod' }],
  ['after an unknown program', 'bash', { command: 'npm test && mkdir src/newmod' }],
  ['python -c', 'bash', { command: 'python3 -c "import os; os.makedirs(\'src/newmod\')"' }],
  ['node -e', 'bash', { command: "node -e \"require('fs').mkdirSync('src/newmod')\"" }],
  ['a generator script', 'bash', { command: 'node scripts/gen.js --out=src/newmod' }],
  ['dd of=', 'bash', { command: 'dd if=/dev/zero of=src/newmod/x count=1' }],
  ['git apply of a patch file', 'bash', { command: 'git apply plans/new.diff' }],
  ['patch reading a file', 'bash', { command: 'patch -p1 < plans/new.diff' }],
  ['patch -i', 'bash', { command: 'patch -p1 -i plans/new.diff' }],
  ['patch -p2: its names less two folders', 'bash', { command: 'patch -p2 < plans/deep.diff' }],
  ['git apply -p2', 'bash', { command: 'git apply -p2 plans/deep.diff' }],
  ['git apply --directory', 'bash', { command: 'git apply --directory=src plans/dir.diff' }],
  ['a write tool path ending in a slash', 'write', { path: 'src/newmod/' }],
  ['a write tool path with backslashes', 'write', { path: 'src\\newmod\\x.ts' }],
  ['mkdir -p through a missing folder', 'bash', { command: 'mkdir -p src/a/../newmod' }],
  ['a heredoc', 'bash', { command: 'cat > src/newmod/x.ts <<EOF\nx\nEOF' }],
  ['a redirection without a command', 'bash', { command: '>src/newmod/x.ts' }],
  ['exec opening a file', 'bash', { command: 'exec 3>src/newmod/x.ts' }],
  ['a subshell with cd', 'bash', { command: '(cd src && mkdir newmod)' }],
  ['tar -C', 'bash', { command: 'tar -xf plans/x.tar -C src/newmod' }],
  ['unzip -d', 'bash', { command: 'unzip plans/x.zip -d src/newmod' }],
  ['git checkout of a path', 'bash', { command: 'git checkout HEAD~1 -- src/newmod' }],
];

/** Folders named by the plan only as a prefix or inside another path: not named. */
const NOT_NAMED: Array<[string, string]> = [
  ['src/newmod', 'a prefix of src/newmodule'],
  ['src/inword', 'inside mysrc/inword'],
  ['src/deep', 'inside lib/src/deep'],
];

/** Refused because the guard cannot tell what they create (blocked even with on_violation: ask). */
const UNCLEAR: Array<[string, string, Record<string, unknown>]> = [
  ['brace expansion', 'bash', { command: 'mkdir src/{a,b}' }],
  ['a variable', 'bash', { command: 'mkdir $D' }],
  ['a variable set on the line', 'bash', { command: 'D=src/newmod; mkdir -p "$D"' }],
  ['a glob', 'bash', { command: 'cp -r lib src/new*' }],
  ['a program in a variable', 'bash', { command: '$MK src/newmod' }],
  ['xargs', 'bash', { command: 'echo src/newmod | xargs mkdir' }],
  ['find -exec', 'bash', { command: 'find src -maxdepth 0 -exec mkdir {}/newmod \\;' }],
  ['an expansion under a root', 'bash', { command: 'node gen.js src/$NAME' }],
  ['eval of a variable', 'bash', { command: 'eval "$CMD"' }],
  ['git -C', 'bash', { command: 'git -C src worktree add newmod' }],
  ['a link made first in the same line', 'bash', { command: 'ln -s src s && mkdir s/newmod' }],
  ['patch from a pipe', 'bash', { command: 'cat plans/new.diff | patch -p1' }],
  ['patch -d', 'bash', { command: 'cd plans && patch -p1 -i new.diff -d ..' }],
  ['git apply of a missing file', 'bash', { command: 'git apply plans/missing.diff' }],
  ['a shell call with an environment', 'bash', { command: 'mkdir x', env: { A: '1' } }],
  ['a writer naming no file', 'write', { content: 'x' }],
  ['a patch without file headers', 'patch', { patch: '@@ -1 +1 @@\n-a\n+b\n' }],
  ['env -C', 'bash', { command: 'env -C src mkdir newmod' }],
  ['env --chdir=', 'bash', { command: 'env --chdir=src mkdir newmod' }],
  ['sudo -D', 'bash', { command: 'sudo -D src mkdir newmod' }],
  ['pushd', 'bash', { command: 'pushd src && mkdir newmod' }],
];

/** Calls that pass with the plan. */
const ALLOWED: Array<[string, string, Record<string, unknown>]> = [
  ['a write into a module the plan names', 'write', { path: 'src/planned/x.ts' }],
  ['mkdir of a named module', 'bash', { command: 'mkdir -p src/planned/sub' }],
  ['a module named with ./ and a slash', 'write', { path: 'src/dotted/x.ts' }],
  ['a new file in an existing module', 'write', { path: 'src/existing/new.ts' }],
  ['a new file right in the module root', 'write', { path: 'src/new.ts' }],
  ['a new folder in an existing module', 'bash', { command: 'mkdir -p src/existing/sub' }],
  ['a copy beside the original', 'bash', { command: 'cp src/app.ts src/app2.ts' }],
  ['a copy into an existing module', 'bash', { command: 'cp src/app.ts src/existing/' }],
  ['a new folder outside the module roots', 'bash', { command: 'mkdir -p lib/newthing' }],
  ['a path outside the project', 'write', { path: '/tmp/hermes-guard-scratch/x.ts' }],
  ['tests', 'bash', { command: 'npm test' }],
  ['a build', 'bash', { command: 'make build && git status' }],
  ['a commit', 'bash', { command: 'git add -A && git commit -m "payments in src/planned"' }],
  [
    'reading a folder that does not exist',
    'bash',
    { command: 'ls src/newmod; grep -r x src/newmod' },
  ],
  ['a reader tool', 'read', { path: 'src/newmod/x.ts' }],
  ['a tool that names no path', 'task', { prompt: 'look around' }],
  ['a patch file changing an existing module', 'bash', { command: 'git apply plans/ok.diff' }],
  ['a link alone', 'bash', { command: 'ln -s ../src/app.ts lib/app.ts' }],
  ['a redirection into an existing module', 'bash', { command: 'echo x > src/existing/y.ts' }],
];

describe('workflow-guard module_roots: a new module needs a plan that names it', () => {
  it.each(NEW_MODULE)('blocks %s', async (_label, toolName, toolArgs) => {
    const root = project();
    const outcome = await decide(root, toolName, withProject(root, toolArgs));
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
    expect(messageOf(outcome)).toContain('src/newmod');
    expect(messageOf(outcome)).toContain('under the module root src/');
    expect(messageOf(outcome)).toContain(`the plan at ${PLAN} does not name it`);
    expect(messageOf(outcome)).toContain('add `src/newmod` to the plan');
    expect(messageOf(outcome)).not.toContain('no plan exists');
  });

  it.each(NOT_NAMED)('does not count %s named %s', async (folder) => {
    const outcome = await decide(project(), 'bash', { command: `mkdir ${folder}` });
    expect(outcome).toMatchObject({ blocked: true });
    expect(messageOf(outcome)).toContain(`add \`${folder}\` to the plan`);
  });

  it('blocks a new package under a second root, naming that root', async () => {
    const outcome = await decide(project(), 'write', { path: 'packages/newpkg/package.json' });
    expect(messageOf(outcome)).toContain('packages/newpkg under the module root packages/');
  });

  it('names every new folder of one call, and the folder after `..`', async () => {
    const root = project();
    const both = await decide(root, 'bash', { command: 'mkdir -p src/one src/two' });
    expect(messageOf(both)).toContain('the new folders src/one, src/two');
    const climbed = await decide(root, 'write', { path: 'src/newmod/../newmod2/x.ts' });
    expect(messageOf(climbed)).toContain('the new folder src/newmod2 ');
  });

  it('reads cp --parents and rsync -R by the whole source path', async () => {
    for (const command of [
      'cp --parents packages/core/index.ts src',
      'rsync -aR packages/core src/',
      'cp -r --parents packages/core src',
    ]) {
      const outcome = await decide(project(), 'bash', { command });
      expect(messageOf(outcome), command).toMatch(/the new folders? (src\/core, )?src\/packages /);
    }
  });

  it.each(UNCLEAR)('refuses what it cannot read: %s', async (_label, toolName, toolArgs) => {
    for (const on_violation of ['block', 'ask']) {
      const outcome = await decide(project(), toolName, toolArgs, { on_violation });
      // A patch command whose patch cannot be read is refused by the framework first
      // (protected ground: it might write anywhere), before workflow-guard sees it.
      const by = /\b(patch|git apply)\b/.test(String(toolArgs.command))
        ? 'hermes'
        : 'workflow-guard';
      expect(outcome).toMatchObject({ blocked: true, blockedBy: by });
      expect(outcome).not.toHaveProperty('ask');
    }
  });

  it.each(ALLOWED)('allows %s', async (_label, toolName, toolArgs) => {
    const outcome = await decide(project(), toolName, toolArgs);
    expect(outcome.blocked).toBe(false);
  });

  it('compares folders as the file system does: SRC/ is another folder only where case matters', async () => {
    const root = project();
    const caseInsensitive = existsSync(join(root, 'SRC'));
    const outcome = await decide(root, 'bash', { command: 'mkdir -p SRC/newmod' });
    expect(outcome.blocked).toBe(caseInsensitive);
  });

  it('lets the module be created once the plan names it, and not before a folder exists', async () => {
    const root = project();
    expect((await decide(root, 'bash', { command: 'mkdir src/newmod' })).blocked).toBe(true);
    write(root, { [PLAN]: `${PLAN_TEXT}3. A new module \`src/newmod\` for the exports.\n` });
    expect((await decide(root, 'bash', { command: 'mkdir src/newmod' })).blocked).toBe(false);
    // Once it exists it is an existing module, whatever the plan says.
    mkdirSync(join(root, 'src/newmod'));
    write(root, { [PLAN]: '# Plan\n1. something else\n' });
    expect((await decide(root, 'write', { path: 'src/newmod/x.ts' })).blocked).toBe(false);
  });

  it('is off without module_roots (the default)', async () => {
    const outcome = await decide(
      project(),
      'bash',
      { command: 'mkdir src/newmod' },
      {
        module_roots: [],
      },
    );
    expect(outcome.blocked).toBe(false);
  });

  it('asks instead of blocking with on_violation: ask, with the same advice', async () => {
    const outcome = await decide(
      root(),
      'write',
      { path: 'src/newmod/x.ts' },
      {
        on_violation: 'ask',
      },
    );
    expect(outcome.blocked).toBe(false);
    expect(askOf(outcome)).toMatchObject({ askedBy: 'workflow-guard' });
    expect(askOf(outcome)?.message).toMatch(
      /^workflow-guard asks for approval: write would create/,
    );
    expect(askOf(outcome)?.message).toContain('A person may approve this call');
    expect(askOf(outcome)?.message).toContain('add `src/newmod` to the plan');
  });

  it('blocks the new module in the reference loop, and lets the model make it once planned', async () => {
    const root = project();
    const runtime = await createRuntime({
      extensions: [workflowGuard],
      cwd: root,
      config: { extensions: { 'workflow-guard': { module_roots: ['src/'] } } },
      logger: memoryLogger(),
    });
    const written: string[] = [];
    const tools = {
      write: {
        execute: ({ path, content }: Record<string, unknown>) => {
          write(root, { [String(path)]: String(content) });
          written.push(String(path));
          return `wrote ${path}`;
        },
      },
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('write', { path: 'src/newmod/x.ts', content: 'x' })] },
      {
        content: '',
        toolCalls: [toolCall('write', { path: PLAN, content: `${PLAN_TEXT}3. src/newmod\n` })],
      },
      { content: '', toolCalls: [toolCall('write', { path: 'src/newmod/x.ts', content: 'x' })] },
      { content: 'Done.' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'add the exports module',
      systemPrompt: 'Agent.',
      model,
      tools,
    });
    expect(result.toolCalls.map((c) => [c.arguments.path, c.blocked])).toEqual([
      ['src/newmod/x.ts', true],
      [PLAN, false],
      ['src/newmod/x.ts', false],
    ]);
    expect(written).toEqual([PLAN, 'src/newmod/x.ts']);
  });
});

function root() {
  return project();
}
