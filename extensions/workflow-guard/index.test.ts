import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';

// The analysis as a host without the sandbox meets it (`sandbox: off`); sandbox.test.ts runs the
// same kinds of calls with the sandbox on.
async function guarded(project: string, config: Record<string, unknown> = {}) {
  return createRuntime({
    extensions: [workflowGuard],
    cwd: project,
    config: { extensions: { 'workflow-guard': { sandbox: 'off', ...config } } },
    logger: memoryLogger(),
  });
}

function sampleProject() {
  const project = tree({
    'src/app.ts': 'export const app = 1;\n',
    'plans/.keep': '',
    'handoff/notes.md': '',
    'plansX/readme.md': '',
  });
  symlinkSync('/etc', join(project, 'plans/etc-link'));
  symlinkSync(join(project, 'src'), join(project, 'plans/src-link'));
  symlinkSync('/tmp/hermes-guard-dangling-target', join(project, 'plans/dangling'));
  return project;
}

async function decide(project: string, toolName: string, toolArgs: Record<string, unknown>) {
  const runtime = await guarded(project);
  return runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName, toolArgs }));
}

/** Attempts to write outside plans/ and handoff/ without a plan: every one must be blocked. */
const BYPASSES: Array<[string, string, Record<string, unknown>]> = [
  ['plain write to src', 'write', { path: 'src/app.ts', content: 'x' }],
  ['traversal out of plans', 'write', { path: 'plans/../src/app.ts' }],
  ['deep traversal', 'edit', { path: 'plans/a/b/../../../src/app.ts' }],
  ['dot-slash traversal', 'write', { path: './plans/./../src/app.ts' }],
  ['absolute path into src', 'write', { path: '/PROJECT/src/app.ts' }],
  ['absolute path outside the project', 'write', { path: '/etc/hosts' }],
  ['home directory', 'write', { path: '~/notes.txt' }],
  ['prefix that is not a whole folder', 'write', { path: 'plansX/readme.md' }],
  ['prefix without slash', 'write', { path: 'plans.md' }],
  ['symlink inside plans to /etc', 'write', { path: 'plans/etc-link/passwd' }],
  ['symlink inside plans to src', 'edit', { path: 'plans/src-link/app.ts' }],
  ['dangling symlink in plans', 'write', { path: 'plans/dangling' }],
  ['parent of a symlink target', 'write', { path: 'plans/src-link/../app.ts' }],
  ['file_path argument', 'edit', { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' }],
  ['filePath argument', 'edit', { filePath: 'src/app.ts' }],
  ['filename argument', 'write', { filename: 'src/new.ts' }],
  ['target argument', 'write', { target: 'src/new.ts' }],
  ['paths list with one bad entry', 'write', { paths: ['plans/a.md', 'src/b.ts'] }],
  [
    'nested multi-edit',
    'edit',
    { edits: [{ file_path: 'plans/a.md' }, { file_path: 'src/app.ts' }] },
  ],
  [
    'allowed path plus a second outside',
    'write',
    { path: 'plans/a.md', destination: 'src/app.ts' },
  ],
  ['no path at all', 'write', { content: 'x' }],
  ['empty args', 'edit', {}],
  ['non-string path', 'write', { path: 42 }],
  [
    'apply_patch into src',
    'patch',
    { patch: '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch' },
  ],
  [
    'multi-file patch, one outside',
    'patch',
    {
      patch:
        '*** Begin Patch\n*** Add File: plans/p.md\n+x\n*** Add File: src/evil.ts\n+y\n*** End Patch',
    },
  ],
  [
    'patch that moves a plan into src',
    'patch',
    { patch: '*** Begin Patch\n*** Update File: plans/p.md\n*** Move to: src/p.ts\n*** End Patch' },
  ],
  [
    'patch deleting a source file',
    'patch',
    { input: '*** Begin Patch\n*** Delete File: src/app.ts\n*** End Patch' },
  ],
  [
    'unified diff into src',
    'patch',
    { diff: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n' },
  ],
  [
    'unified diff with traversal',
    'patch',
    { diff: '--- a/plans/../src/app.ts\n+++ b/plans/../src/app.ts\n@@\n' },
  ],
  [
    'git diff renaming a plan into src',
    'patch',
    { patch: 'diff --git a/plans/p.md b/src/p.ts\nrename from plans/p.md\nrename to src/p.ts\n' },
  ],
  ['patch without file headers', 'patch', { patch: '@@ -1 +1 @@\n-a\n+b\n' }],
  ['shell redirection', 'terminal', { command: 'echo x > src/app.ts' }],
  ['shell append without spaces', 'bash', { command: 'echo x>>src/app.ts' }],
  ['shell tee', 'terminal', { command: 'echo x | tee plans/a.md src/b.ts' }],
  ['shell sed -i', 'terminal', { command: "sed -i 's/a/b/' src/app.ts" }],
  ['shell cp into src', 'terminal', { command: 'cp plans/a.md src/a.ts' }],
  ['shell mv out of plans', 'terminal', { command: 'mv plans/a.md src/a.md' }],
  ['shell rm', 'terminal', { command: 'rm -rf src' }],
  ['shell touch', 'shell', { command: 'touch src/new.ts' }],
  ['shell mkdir', 'terminal', { command: 'mkdir -p src/newmodule' }],
  ['write after a harmless command', 'terminal', { command: 'ls && echo x > src/app.ts' }],
  ['command substitution', 'terminal', { command: 'echo $(rm -rf src)' }],
  ['backticks', 'terminal', { command: 'echo `touch src/x`' }],
  ['variable target', 'terminal', { command: 'echo x > $TARGET' }],
  ['brace expansion escaping plans', 'terminal', { command: 'touch plans/{a,../src/b}.ts' }],
  ['bash -c wrapper', 'terminal', { command: 'bash -c "echo x > src/app.ts"' }],
  ['argv array with sh -c', 'terminal', { command: ['sh', '-c', 'rm -rf src'] }],
  ['sudo wrapper', 'terminal', { command: 'sudo rm src/app.ts' }],
  ['env assignment prefix', 'terminal', { command: 'FOO=1 rm src/app.ts' }],
  ['python writing files', 'terminal', { command: "python3 -c \"open('src/app.ts','w')\"" }],
  ['unknown program', 'terminal', { command: 'make build' }],
  ['find -delete', 'terminal', { command: 'find src -name "*.ts" -delete' }],
  ['git checkout', 'terminal', { command: 'git checkout -- src/app.ts' }],
  ['dd of=', 'terminal', { command: 'dd if=/dev/zero of=src/app.ts count=1' }],
  ['redirect to a traversal', 'terminal', { command: 'echo x > plans/../src/app.ts' }],
  ['redirect through a symlink', 'terminal', { command: 'echo x > plans/src-link/app.ts' }],
  ['shell call without a command', 'terminal', {}],
];

/** Calls that must pass without a plan. */
const LEGITIMATE: Array<[string, string, Record<string, unknown>]> = [
  ['write the plan', 'write', { path: PLAN, content: '# Plan' }],
  ['write into handoff', 'edit', { file_path: 'handoff/notes.md' }],
  ['absolute path into plans', 'write', { path: '/PROJECT/plans/x.md' }],
  ['dot-slash into plans', 'write', { path: './plans/x.md' }],
  [
    'patch that only touches plans',
    'patch',
    { patch: '*** Begin Patch\n*** Add File: plans/p.md\n+x\n*** End Patch' },
  ],
  [
    'unified diff adding a plan',
    'patch',
    { diff: '--- /dev/null\n+++ b/plans/new.md\n@@ -0,0 +1 @@\n+x\n' },
  ],
  [
    'a plan whose content has --- lines',
    'write',
    { path: PLAN, content: '# Plan\n---\nsteps\n+++ more' },
  ],
  ['read-only shell', 'terminal', { command: 'ls -la && cat src/app.ts | grep app' }],
  ['git status', 'terminal', { command: 'git status && git diff' }],
  ['redirect into plans', 'terminal', { command: 'echo "# plan" > plans/active/plan.md' }],
  ['mkdir in plans', 'terminal', { command: 'mkdir -p plans/active' }],
  ['stderr to /dev/null', 'terminal', { command: 'grep -r app src 2>/dev/null' }],
  ['sed without -i', 'terminal', { command: "sed 's/a/b/' src/app.ts" }],
  ['a tool the guard does not watch', 'read', { path: 'src/app.ts' }],
];

describe('workflow-guard without a plan', () => {
  it.each(BYPASSES)('blocks: %s', async (_label, toolName, toolArgs) => {
    const project = sampleProject();
    const args = JSON.parse(JSON.stringify(toolArgs).replaceAll('/PROJECT', project));
    const outcome = await decide(project, toolName, args);
    expect(outcome).toMatchObject({
      blocked: true,
      blockedBy: 'workflow-guard',
      message: expect.stringContaining(`Write the plan at ${PLAN}`),
    });
  });

  it.each(LEGITIMATE)('allows: %s', async (_label, toolName, toolArgs) => {
    const project = sampleProject();
    const args = JSON.parse(JSON.stringify(toolArgs).replaceAll('/PROJECT', project));
    const outcome = await decide(project, toolName, args);
    expect(outcome.blocked).toBe(false);
  });

  it('names the offending path in the block message', async () => {
    const outcome = await decide(sampleProject(), 'write', { path: 'src/app.ts' });
    expect(outcome).toMatchObject({
      blocked: true,
      message: expect.stringMatching(/write would write src\/app\.ts/),
    });
  });
});

describe('workflow-guard and the plan', () => {
  it('lets tool calls through once a non-blank plan exists, and not for a blank one', async () => {
    const project = sampleProject();
    write(project, { [PLAN]: '   \n\t\n' });
    expect((await decide(project, 'write', { path: 'src/app.ts' })).blocked).toBe(true);
    write(project, { [PLAN]: '# Plan\n1. fix it\n' });
    expect((await decide(project, 'write', { path: 'src/app.ts' })).blocked).toBe(false);
    expect((await decide(project, 'terminal', { command: 'make build' })).blocked).toBe(false);
  });

  it('counts a plan written earlier in the same turn for the next tool call', async () => {
    const project = sampleProject();
    const runtime = await guarded(project);
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect(
        (await turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/app.ts' } }))
          .blocked,
      ).toBe(true);
      write(project, { [PLAN]: '# Plan' });
      expect(
        (await turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/app.ts' } }))
          .blocked,
      ).toBe(false);
      expect(turn.state['workflow-guard']).toMatchObject({ blocked: 1 });
    });
  });

  it('rewrites implementation requests to the plan command, leaving questions and slash commands', async () => {
    const project = sampleProject();
    const runtime = await guarded(project);
    const input = (message: string) =>
      runtime
        .runTurn({ sessionId: 's' }, (t) => t.transformUserInput(message))
        .then((o) => o.value);
    expect(await input('fix the login bug')).toBe('/start-feature fix the login bug');
    expect(await input('Can you add a logout button?')).toBe(
      '/start-feature Can you add a logout button?',
    );
    expect(await input('please refactor the router')).toBe(
      '/start-feature please refactor the router',
    );
    expect(await input('why does the login fail?')).toBe('why does the login fail?');
    expect(await input('how is the router built')).toBe('how is the router built');
    expect(await input('/status')).toBe('/status');
    expect(await input('thanks!')).toBe('thanks!');
    write(project, { [PLAN]: '# Plan' });
    expect(await input('fix the login bug')).toBe('fix the login bug');
  });

  it('reminds every model request to plan, then injects the guardrails once a plan exists', async () => {
    const project = sampleProject();
    const runtime = await guarded(project);
    const request = () =>
      runtime.runTurn({ sessionId: 's' }, (t) =>
        t.beforeLlmCall({ systemPrompt: 'Base.', messages: [] }),
      );
    const before = await request();
    expect(before.value.systemPrompt).toBe('Base.');
    expect(before.value.messages.at(-1)?.content).toMatch(
      /No plan exists yet at plans\/active\/plan\.md/,
    );
    write(project, { [PLAN]: '# Plan' });
    const after = await request();
    expect(after.value.messages).toEqual([]);
    expect(after.value.systemPrompt).toMatch(/^Base\.\n\nA plan exists at plans\/active\/plan\.md/);
  });

  it('follows its config: plan path, tools, allowed paths, plan command and texts', async () => {
    const project = sampleProject();
    const runtime = await guarded(project, {
      plan_path: 'docs/PLAN.md',
      blocked_tools: ['str_replace'],
      unknown_tools: 'allow',
      allowed_paths: ['docs/'],
      plan_command: '/plan',
      texts: { reminder: 'Plan in docs/PLAN.md.' },
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      expect((await turn.transformUserInput('add a feature')).value).toBe('/plan add a feature');
      expect(
        (await turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/a.ts' } }))
          .blocked,
      ).toBe(false);
      expect(
        (await turn.interceptToolCall({ toolName: 'str_replace', toolArgs: { path: 'src/a.ts' } }))
          .blocked,
      ).toBe(true);
      expect(
        (
          await turn.interceptToolCall({
            toolName: 'str_replace',
            toolArgs: { path: 'docs/notes.md' },
          })
        ).blocked,
      ).toBe(false);
      const llm = await turn.beforeLlmCall({ systemPrompt: '', messages: [] });
      expect(llm.value.messages.at(-1)?.content).toBe('Plan in docs/PLAN.md.');
    });
  });
});

describe('workflow-guard in the reference loop', () => {
  it('blocks the edit, lets the plan be written, then allows the same edit', async () => {
    const project = sampleProject();
    const runtime = await guarded(project);
    const written: string[] = [];
    const tools = {
      write: {
        execute: ({ path, content }: Record<string, unknown>) => {
          write(project, { [String(path)]: String(content) });
          written.push(String(path));
          return `wrote ${path}`;
        },
      },
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('write', { path: 'src/app.ts', content: 'fixed' })] },
      { content: '', toolCalls: [toolCall('write', { path: PLAN, content: '# Plan\n1. fix' })] },
      { content: '', toolCalls: [toolCall('write', { path: 'src/app.ts', content: 'fixed' })] },
      { content: 'Done.' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'fix the app',
      systemPrompt: 'Agent.',
      model,
      tools,
    });
    expect(result.toolCalls.map((c) => [c.arguments.path, c.blocked])).toEqual([
      ['src/app.ts', true],
      [PLAN, false],
      ['src/app.ts', false],
    ]);
    expect(written).toEqual([PLAN, 'src/app.ts']);
    expect(model.requests[0]?.messages.at(-2)?.content).toBe('/start-feature fix the app');
    expect(model.requests[2]?.systemPrompt).toMatch(/A plan exists/);
  });
});
