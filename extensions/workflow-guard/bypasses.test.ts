import { linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, defineExtension, rewrite } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';

function project() {
  const root = tree({
    'src/app.ts': 'export const app = 1;\n',
    'plans/.keep': '',
    'plans/deep/deeper/.keep': '',
  });
  symlinkSync('deep/deeper', join(root, 'plans/link'));
  symlinkSync(join(root, 'src'), join(root, 'plans/src-link'));
  // A second name of a source file inside plans/, as a hard link.
  linkSync(join(root, 'src/app.ts'), join(root, 'plans/app-alias.ts'));
  return root;
}

// The analysis as a host without the sandbox meets it (`sandbox: off`); sandbox.test.ts runs the
// same kinds of calls with the sandbox on.
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

/** Tool calls that change src/ (or run unknown code) without a plan: every one is blocked. */
const BYPASSES: Array<[string, string, Record<string, unknown>]> = [
  ['an MCP tool', 'mcp__filesystem__write_file', { path: 'plans/x.md', content: 'x' }],
  ['a tool nobody listed', 'CustomWriter', { target: 'src/app.ts' }],
  ['a subagent', 'task', { prompt: 'edit src/app.ts' }],
  ['write_file in other case', 'Write_File', { path: 'src/app.ts', content: 'x' }],
  ['create_file', 'create_file', { path: 'src/new.ts', content: 'x' }],
  [
    'str_replace_editor create',
    'str_replace_editor',
    { command: 'create', path: 'src/new.ts', file_text: 'x' },
  ],
  [
    'multi_edit',
    'multi_edit',
    { file_path: 'src/app.ts', edits: [{ old_string: 'a', new_string: 'b' }] },
  ],
  ['notebook_edit', 'notebook_edit', { notebook_path: 'src/n.ipynb', new_source: 'x' }],
  [
    'apply_patch in its command',
    'apply_patch',
    { command: '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch' },
  ],
  ['a path under a name that says path', 'write', { content: 'x', output_location: 'src/app.ts' }],
  [
    'move_file of a source file into plans (the move removes it)',
    'move_file',
    { source: 'src/app.ts', destination: 'plans/app.ts' },
  ],
  [
    'a list of outputs beside an allowed path',
    'write',
    { path: 'plans/x.md', content: 'x', output_files: ['src/app.ts'] },
  ],
  [
    'an indented patch whose Index: line names a source file',
    'patch',
    {
      patch:
        '  Index: src/app.ts\n  --- plans/none.md\n  +++ plans/none.md\n  @@ -1 +1 @@\n  -a\n  +b\n',
    },
  ],
  ['lexically out of plans, physically in', 'write', { path: 'plans/link/../../src/app.ts' }],
  ['a link in plans to src', 'write', { path: 'plans/src-link/app.ts' }],
  ['a hard link in plans to a source file', 'write', { path: 'plans/app-alias.ts', content: 'x' }],
  [
    'patch markers indented (Codex trims them)',
    'patch',
    { patch: '*** Begin Patch\n   *** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch' },
  ],
  [
    'patch markers without spaces',
    'patch',
    { patch: '*** Begin Patch\n***Update File:src/app.ts\n@@\n-a\n+b\n*** End Patch' },
  ],
  [
    'patch markers in other case',
    'patch',
    { patch: '*** begin patch\n*** update file: src/app.ts\n@@\n-a\n+b\n*** end patch' },
  ],
  [
    'patch with CRLF lines',
    'patch',
    { patch: '*** Begin Patch\r\n*** Add File: src/x.ts\r\n+a\r\n*** End Patch\r\n' },
  ],
  [
    'a context diff',
    'patch',
    {
      patch:
        '*** src/app.ts\t2026-01-01\n--- src/app.ts\t2026-01-02\n***************\n*** 1 ****\n! a\n--- 1 ----\n! b\n',
    },
  ],
  [
    'an Index: line',
    'patch',
    {
      patch:
        'Index: src/app.ts\n===================================================================\n@@ -1 +1 @@\n-a\n+b\n',
    },
  ],
  [
    'a hunk before any header',
    'patch',
    {
      patch: '--- plans/a.md\n+++ plans/a.md\n@@ -1 +1 @@\n-a\n+b\n'.replace(
        '--- plans/a.md\n+++ plans/a.md\n',
        '',
      ),
    },
  ],
  ['an ed script', 'patch', { patch: '1c\nexport const app = 2;\n.\nw src/app.ts\n' }],
  ['a patch that names no file', 'patch', { patch: 'just some text' }],
  [
    'a git diff renaming into src',
    'patch',
    { diff: 'diff --git a/plans/a.md b/src/a.ts\nrename from plans/a.md\nrename to src/a.ts\n' },
  ],
  ['a shell call that sets the environment', 'bash', { command: 'ls', env: { PATH: 'plans' } }],
  ['a shell call in another shell', 'bash', { command: 'ls', shell: 'zsh' }],
  ['a shell call with an argument the guard does not know', 'bash', { command: 'ls', hook: 'x' }],
  ['an argv that writes', 'bash', { command: ['rm', '-rf', 'src'] }],
  ['a program with args', 'bash', { command: 'rm', args: ['-rf', 'src'] }],
  [
    'a program and args joined without quotes',
    'bash',
    { command: 'echo', args: ['x', '>', 'src/app.ts'] },
  ],
  ['a workdir in src', 'bash', { command: 'echo x > app.ts', workdir: 'src' }],
  ['a cwd in src', 'bash', { command: 'echo x > app.ts', cwd: 'src' }],
  ['cd into src', 'bash', { command: 'cd src && echo x > app.ts' }],
  ['cd through a link into src', 'bash', { command: 'cd plans/src-link && echo x > app.ts' }],
  ['a redirect through a link', 'bash', { command: 'echo x > plans/src-link/app.ts' }],
  [
    'a redirect lexically out of plans',
    'bash',
    { command: 'echo x > plans/link/../../src/app.ts' },
  ],
  ['a redirect to a hard link', 'bash', { command: 'echo x >> plans/app-alias.ts' }],
  ['tee into src', 'bash', { command: 'echo x | tee src/app.ts' }],
  ['mkdir in src', 'bash', { command: 'mkdir -p src/evil' }],
  ['an all-digit file name', 'bash', { command: 'echo x > 1' }],
  ['a write after cd may have failed', 'bash', { command: 'cd plans || true; echo x > a.md' }],
  // The analysis itself (issue 21 §2): bash evaluates a subscript in arithmetic as code.
  ['test -v with a subscript', 'bash', { command: "test -v 'a[$(touch src/x)]'" }],
  ['[[ -eq ]] on a subscript', 'bash', { command: "[[ 'a[$(rm -rf src)]' -eq 1 ]]" }],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  ['a slice offset from a file', 'bash', { command: 'echo ${x:$(cat plans/n)}' }],
  // Assignments a later git reads (HOME: its global config, with core.fsmonitor).
  ['printf -v HOME', 'bash', { command: 'printf -v HOME %s plans; git status' }],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  ['${HOME:=…}', 'bash', { command: ': ${HOME:=plans}; git status' }],
  ['bash -o allexport', 'bash', { command: "bash -o allexport -c 'git status'" }],
  [
    'command cd, not followed',
    'bash',
    { command: 'cd plans && command cd ../src && echo x > app.ts' },
  ],
  // The program comes from the input.
  ['xargs env', 'bash', { command: "echo 'rm src/app.ts' | xargs env" }],
  ['xargs xargs', 'bash', { command: "echo 'touch src/x' | xargs xargs" }],
  // GNU sed ends a label at white space.
  ['a sed label before w', 'bash', { command: "sed -n ':x w src/a.ts' src/app.ts" }],
  // dash reads `[[` as a program and `>` as a redirection.
  ['[[ in sh -c', 'bash', { command: "sh -c '[[ a > src/app.ts ]]'" }],
  ['[[ in a line for sh', 'bash', { command: '[[ a > src/app.ts ]]', shell: 'sh' }],
  // What configures a program run later, outside any sandbox, in plans/ (git there, an editor or
  // an agent opened there, a shell started there): the sandbox holds these, so must the guard.
  ['a repository config in plans/', 'write', { path: 'plans/.git/config', content: '[core]' }],
  ['a git hook in plans/', 'write', { path: 'plans/r/.git/hooks/pre-commit', content: 'x' }],
  ['a .git file in plans/', 'write', { path: 'plans/.git', content: 'gitdir: ../src' }],
  ['editor tasks in plans/', 'write', { file_path: 'plans/.vscode/tasks.json', content: '{}' }],
  ['agent settings in plans/', 'edit', { path: 'plans/a/.claude/settings.json' }],
  ['a shell start-up file in plans/', 'write', { path: 'plans/.bashrc', content: 'x' }],
  // (`.mcp.json` anywhere is protected ground, refused before any guard: protected-mcp-configs.test.ts.)
  ['ripgrep settings in handoff/', 'write', { path: 'handoff/.ripgreprc', content: '--pre=x' }],
  [
    'editor tasks by the shell',
    'bash',
    { command: 'mkdir -p plans/.vscode && echo x > plans/.vscode/tasks.json' },
  ],
  ['a repository config by the shell', 'bash', { command: 'echo x >> plans/.GIT/config' }],
];

describe('workflow-guard without a plan: bypasses', () => {
  it.each(BYPASSES)('blocks %s', async (_label, toolName, toolArgs) => {
    const outcome = await decide(project(), toolName, toolArgs);
    expect(outcome, JSON.stringify(toolArgs)).toMatchObject({
      blocked: true,
      message: expect.stringContaining(`Write the plan at ${PLAN}`),
    });
  });

  it('says what to do about a tool or program it does not know', async () => {
    const root = project();
    expect(await decide(root, 'mcp__db__query', { sql: 'select 1' })).toMatchObject({
      blocked: true,
      message: expect.stringMatching(/not a tool known to only read.*read_only_tools/),
    });
    expect(await decide(root, 'bash', { command: 'npm test' })).toMatchObject({
      blocked: true,
      message: expect.stringMatching(/`npm test` is not known to only read.*shell_read_only/),
    });
  });
});

/** What must keep working without a plan. */
const LEGITIMATE: Array<[string, string, Record<string, unknown>]> = [
  ['reading', 'read', { path: 'src/app.ts' }],
  ['searching', 'grep', { pattern: 'app', path: 'src' }],
  ['web search', 'web_search', { query: 'x' }],
  ['writing the plan', 'write', { path: PLAN, content: '# Plan\n' }],
  [
    'writing the plan with a diff inside',
    'write',
    { path: PLAN, content: '# Plan\n--- a/src/x\n+++ b/src/x\n@@ -1 +1 @@\n' },
  ],
  [
    'a patch that adds the plan',
    'apply_patch',
    { input: '*** Begin Patch\n*** Add File: plans/active/plan.md\n+# Plan\n*** End Patch\n' },
  ],
  [
    'a git diff into plans',
    'patch',
    {
      diff: 'diff --git a/plans/a.md b/plans/a.md\n--- a/plans/a.md\n+++ b/plans/a.md\n@@ -1 +1 @@\n-a\n+b\n',
    },
  ],
  [
    'the editor viewing a source file',
    'str_replace_editor',
    { command: 'view', path: 'src/app.ts' },
  ],
  ['git status', 'bash', { command: 'git status && git log --oneline -3 && git diff' }],
  ['ls and cat', 'bash', { command: 'ls -la src && cat src/app.ts', description: 'look' }],
  [
    'a here-document into the plan',
    'bash',
    { command: "mkdir -p plans/active && cat > plans/active/plan.md <<'EOF'\n# Plan\nEOF" },
  ],
  ['cd into plans and write', 'bash', { command: 'cd plans && echo notes > notes.md' }],
  ['an argv that reads', 'exec_command', { command: ['bash', '-lc', 'git status'], workdir: '.' }],
  ['a shell call in a workdir', 'bash', { command: 'echo x > notes.md', workdir: 'plans' }],
  [
    'the builtins that test and print',
    'bash',
    { command: "test -f src/app.ts && [ -d src ] && printf '%s\\n' a && echo hi && :" },
  ],
  ['a line for sh', 'bash', { command: '[ -f src/app.ts ] && git status', shell: 'sh' }],
];

describe('workflow-guard without a plan: what keeps passing', () => {
  it.each(LEGITIMATE)('allows %s', async (_label, toolName, toolArgs) => {
    const outcome = await decide(project(), toolName, toolArgs);
    expect(outcome).not.toHaveProperty('message');
    expect(outcome.blocked).toBe(false);
  });

  it('lets the user open up: read_only_tools, unknown_tools, shell_read_only', async () => {
    const root = project();
    expect(
      (await decide(root, 'mcp__db__query', {}, { read_only_tools: ['mcp__db__query'] })).blocked,
    ).toBe(false);
    expect((await decide(root, 'mcp__db__query', {}, { unknown_tools: 'allow' })).blocked).toBe(
      false,
    );
    expect(
      (await decide(root, 'bash', { command: 'npm test' }, { shell_read_only: ['npm test'] }))
        .blocked,
    ).toBe(false);
    expect(
      (await decide(root, 'bash', { command: 'npm publish' }, { shell_read_only: ['npm test'] }))
        .blocked,
    ).toBe(true);
  });
});

describe('workflow-guard: what counts as a plan', () => {
  it.each([
    ['only white space', ' \n\t\r\n'],
    ['a byte order mark', '\uFEFF'],
    ['zero-width characters', '\u200B\u200C\u200D\u2060\uFEFF'],
    ['no-break and ideographic spaces', '\u00A0\u3000\u2007'],
    ['blank letters', '\u3164\u115F\u2800'],
    ['combining marks alone', '\u0301\u0308'],
    ['bidi marks', '\u200E\u200F\u202A\u202C'],
  ])('a plan of %s is no plan', async (_label, content) => {
    const root = project();
    write(root, { [PLAN]: content });
    expect((await decide(root, 'write', { path: 'src/app.ts' })).blocked).toBe(true);
  });

  it('a plan that is a folder is no plan; one readable line is', async () => {
    const root = project();
    mkdirSync(join(root, PLAN), { recursive: true });
    expect((await decide(root, 'write', { path: 'src/app.ts' })).blocked).toBe(true);
    const other = project();
    write(other, { [PLAN]: '\uFEFF\u200B 1. fix\n' });
    expect((await decide(other, 'write', { path: 'src/app.ts' })).blocked).toBe(false);
  });
});

describe('workflow-guard judges the call as it will run', () => {
  it('blocks arguments a later extension rewrote after the guard had passed them', async () => {
    const root = project();
    const redirect = defineExtension({
      name: 'redirect',
      setup(hermes) {
        hermes.on(
          'intercept_tool_call',
          (event) => rewrite({ ...event.toolArgs, path: 'src/app.ts' }),
          { priority: 500 },
        );
      },
    });
    const runtime = await createRuntime({
      extensions: [workflowGuard, redirect],
      cwd: root,
      config: { extensions: {} },
      logger: memoryLogger(),
    });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'plans/a.md' } }),
    );
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
  });
});
