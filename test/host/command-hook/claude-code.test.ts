import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../../src/host/command-hook/agents.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runBin, runHook } from '../../support/run-bin.js';

const hook = (home: string, event: unknown, extraEnv: Record<string, string> = {}) =>
  runHook('claude-code', home, event, extraEnv);

const counter = tsExtension(
  'counter',
  // Slow between reading and writing the count, so processes that did not wait for each other lose counts.
  `hermes.on('intercept_tool_call', async (e) => { const seen = (e.state.calls as number) ?? 0; await new Promise((r) => setTimeout(r, 150)); e.state.calls = seen + 1; });`,
);
const pathFixer = tsExtension(
  'path-fixer',
  `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).endsWith('.tmp') ? { action: 'rewrite', value: { ...e.toolArgs, path: String(e.toolArgs.path).replace(/\\.tmp$/, '.md') } } : undefined);`,
);

function setup(extra: Record<string, string> = {}) {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
    ...extra,
  });
  const project = tree({ '.git/HEAD': '' });
  const base = {
    session_id: 'cc-session',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
  };
  return { home, project, base };
}

describe.runIf(built)('hermes hook claude-code', () => {
  it('denies an edit without a plan and allows it with one (workflow-guard, default config)', async () => {
    const { home, project, base } = setup();
    const prompt = await hook(home, {
      ...base,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'fix the login bug',
    });
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        // The rewrite, then workflow-guard's reminder (before_llm_call) for the first request.
        additionalContext: expect.stringMatching(
          /^Hermes extensions rewrote this request; treat it as: \/start-feature fix the login bug\n\nNo plan exists yet at plans\/active\/plan\.md\. Plan before you implement/,
        ),
      },
    });
    const edit = {
      ...base,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_use_id: 'toolu_1',
      tool_input: { file_path: join(project, 'src/login.ts'), old_string: 'a', new_string: 'b' },
    };
    const denied = await hook(home, edit);
    expect(denied.code).toBe(0);
    const output = JSON.parse(denied.stdout).hookSpecificOutput;
    expect(output).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(output.permissionDecisionReason).toMatch(/Write the plan at plans\/active\/plan\.md/);
    const bash = await hook(home, {
      ...base,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo x > src/login.ts', description: 'write' },
    });
    expect(JSON.parse(bash.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    write(project, { 'plans/active/plan.md': '# Plan\n1. fix\n' });
    // The model tries again: a new call, with its own id.
    const allowed = await hook(home, { ...edit, tool_use_id: 'toolu_2' });
    expect(allowed).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('shares one turn state across parallel PreToolUse processes, and drops it at Stop', async () => {
    const { home, base } = setup({ 'extensions/counter.ts': counter });
    await hook(home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'what is here?' });
    const read = (i: number) => ({
      ...base,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: `/tmp/${i}` },
    });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => hook(home, read(i))));
    expect(answers.map((a) => a.code)).toEqual(Array(6).fill(0));
    const file = join(home, 'turns', 'cc-session.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).state).toMatchObject({ calls: 6 });
    await hook(home, { ...base, hook_event_name: 'Stop', stop_hook_active: false });
    expect(existsSync(file)).toBe(false);
    await hook(home, read(7));
    expect(JSON.parse(readFileSync(file, 'utf8')).state).toMatchObject({ calls: 1 });
  });

  it("answers a rewrite with updatedInput in Claude Code argument names, and leaves the permission to Claude Code's own flow", async () => {
    const { home, project, base } = setup({ 'extensions/path-fixer.ts': pathFixer });
    const write = (mode: string) =>
      hook(home, {
        ...base,
        permission_mode: mode,
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { file_path: join(project, 'plans/notes.tmp'), content: 'x' },
      });
    // No permissionDecision: Claude Code's rules, mode and prompt judge the call as rewritten, in
    // every mode; the rewrite neither approves the call nor asks about it.
    for (const mode of ['default', 'bypassPermissions']) {
      expect(JSON.parse((await write(mode)).stdout)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          updatedInput: { file_path: join(project, 'plans/notes.md'), content: 'x' },
        },
      });
    }
  });

  it('asks the user about a call an extension asks about, with the rewritten input; a later block still denies', async () => {
    const { home, project, base } = setup({
      'extensions/path-fixer.ts': pathFixer,
      'extensions/cautious.ts': tsExtension(
        'cautious',
        `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).startsWith('plans/') ? ask('plans are reviewed by a person') : undefined, { priority: 10 });
         hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).endsWith('.lock') ? block('lock files are generated') : undefined, { priority: 200 });`,
        `import { ask } from 'hermes-extensions';`,
      ),
    });
    const write = (file: string) =>
      hook(home, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_use_id: `toolu_${file}`,
        tool_input: { file_path: join(project, file), content: 'x' },
      });
    const asked = await write('plans/notes.tmp');
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason:
          'needs approval: plans are reviewed by a person (asked by cautious)',
        // The person is asked about the call as it would run.
        updatedInput: { file_path: join(project, 'plans/notes.md'), content: 'x' },
      },
    });
    const blocked = await write('plans/deps.lock');
    expect(JSON.parse(blocked.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'lock files are generated',
      },
    });
  });

  it('blocks a prompt with decision "block"', async () => {
    const { home, base } = setup({
      'extensions/no-secrets.ts': tsExtension(
        'no-secrets',
        `hermes.on('transform_user_input', (e) => e.userMessage.includes('sk-') ? block('That looks like an API key.') : undefined);`,
      ),
    });
    const answer = await hook(home, {
      ...base,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'use sk-123',
    });
    expect(JSON.parse(answer.stdout)).toEqual({
      decision: 'block',
      reason: 'That looks like an API key.',
    });
  });

  it('refuses what it cannot read (it may be a tool call), with a message, never a crash or exit 1', async () => {
    const { home } = setup();
    for (const input of [
      'not json',
      '[]',
      '{"hook_event_name":"PreToolUse"}',
      '{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write"}',
    ]) {
      const answer = await hook(home, input);
      expect(answer.code, input).toBe(0);
      expect(answer.stderr, input).toMatch(/^hermes hook claude-code: /);
      expect(JSON.parse(answer.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/^Hermes could not check this call/),
      });
    }
    // A prompt that cannot be read goes on: the user is told, not silenced. (A session of its
    // own: the calls above pinned session s where this process runs, session-root.ts.)
    const prompt = await hook(home, {
      session_id: 's-prompt',
      cwd: tree(),
      hook_event_name: 'UserPromptSubmit',
    });
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout)).toEqual({
      systemMessage: 'Hermes: UserPromptSubmit without a prompt',
    });
    const unknownEvent = await hook(home, { session_id: 's', hook_event_name: 'Notification' });
    expect(unknownEvent).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('installs itself into Claude Code settings, keeping what is there, once', async () => {
    const project = tree({
      '.claude/settings.json': JSON.stringify({
        model: 'opus',
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] }],
        },
      }),
    });
    const install = () => runBin(['hook', 'install', 'claude-code', '--project', '--cwd', project]);
    expect((await install()).stdout).toMatch(
      /Added the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, SubagentStart, SubagentStop, Stop, SessionEnd/,
    );
    expect((await install()).stdout).toMatch(/nothing changed/);
    const settings = JSON.parse(readFileSync(join(project, '.claude/settings.json'), 'utf8'));
    expect(settings.model).toBe('opus');
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0]).toEqual({
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'my-check' }],
    });
    expect(settings.hooks.PreToolUse[1]).toMatchObject({
      matcher: '*',
      hooks: [{ type: 'command', command: claudeCode.projectCommand }],
    });
    expect(settings.hooks.Stop).toHaveLength(1);
    // Every tool's outcome, for observers; no matcher is every tool.
    expect(settings.hooks.PostToolUse).toEqual([
      {
        hooks: [{ type: 'command', command: claudeCode.projectCommand, timeout: 30 }],
      },
    ]);
  });

  it('moves its PreToolUse hook out from under a matcher that leaves tools (MCP ones too) out', async () => {
    const project = tree({ '.git/HEAD': '' });
    const install = () => runBin(['hook', 'install', 'claude-code', '--project', '--cwd', project]);
    await install();
    const file = join(project, '.claude/settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    const ours = settings.hooks.PreToolUse[0].hooks[0];
    settings.hooks.PreToolUse = [
      { matcher: 'Bash|Write', hooks: [ours, { type: 'command', command: 'mine' }] },
    ];
    write(project, { '.claude/settings.json': JSON.stringify(settings) });
    expect((await install()).stdout).toMatch(/Updated the hermes hook's command for PreToolUse/);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse).toEqual([
      { matcher: 'Bash|Write', hooks: [{ type: 'command', command: 'mine' }] },
      { matcher: '*', hooks: [ours] },
    ]);
  });
});
