import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermes } from '../../cli/hermes-cli.js';
import { jsonLines, tree, write } from '../../support/fixtures.js';
import { hermesEvent, hermesReads } from '../../support/hermes-agent-wire.js';
import { bin, built, runHook, runProcess } from '../../support/run-bin.js';

/**
 * The project root is pinned once per session (docs/trust.md, The pinned root): an agent that
 * makes a folder of the project look like a project of its own (a `.git` file or a `.hermes/`
 * folder, and a plan in it, all allowed under plans/ before a plan) and then works from there
 * must still be judged in the session's project, with that project's trusted config and
 * extensions; a folder outside the pinned root is outside the project.
 */
const CONFIG =
  'extensions:\n  paths: [hermes-extensions/workflow-guard, hermes-extensions/audit-log]\n';
const PLAN = '# Plan\n\nRewrite src/a.ts.\n';
const AUDIT = '.hermes/audit/audit.jsonl';

/** A trusted project whose own config runs workflow-guard and audit-log; no plan yet. */
async function trustedProject() {
  const home = tree();
  const project = tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': CONFIG,
    'src/a.ts': 'x\n',
    'plans/.keep': '',
  });
  const trusted = await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
  expect(trusted.code, trusted.stderr).toBe(0);
  return { home, project };
}

/** What the agent may write before a plan: a marker and a plan of its own, under plans/x. */
const MARKERS = {
  '.git file': { 'plans/x/.git': 'gitdir: nowhere\n' },
  '.hermes/ folder': { 'plans/x/.hermes/notes.md': 'mine\n' },
} as const;

function fakeRoot(project: string, marker: keyof typeof MARKERS) {
  write(project, { ...MARKERS[marker], 'plans/x/plans/active/plan.md': PLAN });
  return join(project, 'plans/x');
}

let calls = 0;

/** audit-log's line for the shell call workflow-guard refused. */
const refusedShell = (line: Record<string, unknown>) =>
  line.tool_name === 'bash' && line.blocked === true && line.blocked_by === 'workflow-guard';

/** Claude Code's events; `CLAUDE_PROJECT_DIR` as Claude Code sets it for its hooks, when given. */
function claudeCode(home: string, session: string, projectDir?: string) {
  const env: Record<string, string> =
    projectDir === undefined ? {} : { CLAUDE_PROJECT_DIR: projectDir };
  const base = { session_id: session, transcript_path: '/dev/null', permission_mode: 'default' };
  const prompt = async (cwd: string) =>
    runHook(
      'claude-code',
      home,
      { ...base, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'what does src/a.ts do?' },
      env,
    );
  const tool = async (cwd: string, tool_name: string, tool_input: Record<string, unknown>) => {
    const answer = await runHook(
      'claude-code',
      home,
      {
        ...base,
        cwd,
        hook_event_name: 'PreToolUse',
        tool_name,
        tool_input,
        tool_use_id: `toolu_${calls++}`,
      },
      env,
    );
    expect(answer.code, answer.stderr).toBe(0);
    if (answer.stdout === '') return 'allowed';
    return String(JSON.parse(answer.stdout).hookSpecificOutput?.permissionDecision ?? 'allowed');
  };
  return { prompt, tool };
}

describe.runIf(built)('the project root pinned per session', { timeout: 60_000 }, () => {
  for (const marker of Object.keys(MARKERS) as (keyof typeof MARKERS)[]) {
    it(`claude-code: a ${marker} and a plan under plans/x, then cd plans/x: src/ stays refused, the project's own guards judge`, async () => {
      const { home, project } = await trustedProject();
      const agent = claudeCode(home, `claude-${marker}`, project);
      expect((await agent.prompt(project)).code).toBe(0);
      const fake = fakeRoot(project, marker);
      expect(await agent.tool(fake, 'Bash', { command: 'echo pwned > ../../src/a.ts' })).toBe(
        'deny',
      );
      expect(
        await agent.tool(fake, 'Write', { file_path: join(project, 'src/a.ts'), content: 'pwned' }),
      ).toBe('deny');
      // The plan the agent wrote is no plan of the project: the real one is at its root.
      expect(
        await agent.tool(fake, 'Write', { file_path: join(project, 'src/b.ts'), content: 'x' }),
      ).toBe('deny');
      // The project's audit-log ran, at the project's root, for the calls made from plans/x.
      const lines = jsonLines(join(project, AUDIT));
      expect(lines.some(refusedShell)).toBe(true);
      expect(existsSync(join(fake, AUDIT))).toBe(false);
    });
  }

  it('claude-code without CLAUDE_PROJECT_DIR: the first event of the session pins the root', async () => {
    const { home, project } = await trustedProject();
    const agent = claudeCode(home, 'claude-first-event');
    expect((await agent.prompt(project)).code).toBe(0);
    const fake = fakeRoot(project, '.git file');
    expect(await agent.tool(fake, 'Bash', { command: 'echo pwned > ../../src/a.ts' })).toBe('deny');
    expect(
      await agent.tool(fake, 'Write', { file_path: join(project, 'src/a.ts'), content: 'pwned' }),
    ).toBe('deny');
  });

  it('claude-code: a folder outside the pinned root is outside the project, and a new session pins anew', async () => {
    const { home, project } = await trustedProject();
    // Another project, with a plan of its own.
    const elsewhere = tree({ '.git/HEAD': '', 'src/a.ts': 'x\n', 'plans/active/plan.md': PLAN });
    const agent = claudeCode(home, 'claude-outside', project);
    expect((await agent.prompt(project)).code).toBe(0);
    expect(await agent.tool(elsewhere, 'Bash', { command: 'echo x > src/a.ts' })).toBe('deny');
    expect(
      await agent.tool(elsewhere, 'Write', {
        file_path: join(elsewhere, 'src/a.ts'),
        content: 'y',
      }),
    ).toBe('deny');
    // Reading there is still reading.
    expect(await agent.tool(elsewhere, 'Bash', { command: 'cat src/a.ts' })).toBe('allowed');
    // A session started there is that project's: its plan lets the write through.
    const other = claudeCode(home, 'claude-elsewhere', elsewhere);
    expect((await other.prompt(elsewhere)).code).toBe(0);
    expect(
      await other.tool(elsewhere, 'Write', {
        file_path: join(elsewhere, 'src/a.ts'),
        content: 'y',
      }),
    ).toBe('allowed');
    // And the first session is still pinned where it started.
    expect(
      await agent.tool(elsewhere, 'Write', {
        file_path: join(elsewhere, 'src/a.ts'),
        content: 'y',
      }),
    ).toBe('deny');
  });

  it("claude-code: the turn's end keeps the pin; the session's end lets it go", async () => {
    const { home, project } = await trustedProject();
    const agent = claudeCode(home, 'claude-stop');
    expect((await agent.prompt(project)).code).toBe(0);
    const stop = {
      session_id: 'claude-stop',
      transcript_path: '/dev/null',
      cwd: project,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    };
    expect((await runHook('claude-code', home, stop)).code).toBe(0);
    const fake = fakeRoot(project, '.git file');
    // The next turn's first event comes from plans/x: the session is still the project's.
    expect((await agent.prompt(fake)).code).toBe(0);
    expect(
      await agent.tool(fake, 'Write', { file_path: join(project, 'src/a.ts'), content: 'pwned' }),
    ).toBe('deny');
    // Once the session has ended, its id starts a session of its own, pinned where it starts.
    const end = { ...stop, hook_event_name: 'SessionEnd', reason: 'other' };
    expect((await runHook('claude-code', home, end)).code).toBe(0);
    const elsewhere = tree({ '.git/HEAD': '', 'src/a.ts': 'x\n', 'plans/active/plan.md': PLAN });
    expect((await agent.prompt(elsewhere)).code).toBe(0);
    expect(
      await agent.tool(elsewhere, 'Write', {
        file_path: join(elsewhere, 'src/a.ts'),
        content: 'y',
      }),
    ).toBe('allowed');
  });

  it('claude-code: a pin that cannot be read refuses the call, naming the file, and is never made anew', async () => {
    const { home, project } = await trustedProject();
    const file = join(home, 'turns', 'claude-corrupt.root');
    write(home, { 'turns/claude-corrupt.root': '{"from":' });
    const answer = await runHook('claude-code', home, {
      session_id: 'claude-corrupt',
      transcript_path: '/dev/null',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: `toolu_${calls++}`,
    });
    const output = JSON.parse(answer.stdout).hookSpecificOutput;
    expect(output.permissionDecision).toBe('deny');
    expect(output.permissionDecisionReason).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe('{"from":');
  });

  it('cursor: the workspace root is pinned, whatever folder the Shell call runs in', async () => {
    const { home, project } = await trustedProject();
    const base = {
      conversation_id: 'cursor-conv',
      generation_id: 'gen-1',
      model: 'gpt-5',
      cursor_version: '2.0.77',
      workspace_roots: [project],
      user_email: null,
      transcript_path: null,
    };
    const send = async (event: Record<string, unknown>) => {
      const run = await runProcess(process.execPath, [bin, 'hook', 'cursor'], {
        env: { HOME: home, HERMES_HOME: home, HERMES_DAEMON: '0' },
        stdin: JSON.stringify({ ...base, ...event }),
      });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    const fake = fakeRoot(project, '.git file');
    // Cursor's first event may already come from the folder the model chose: the workspace decides.
    const tool = (cwd: string, tool_name: string, tool_input: Record<string, unknown>) =>
      send({
        hook_event_name: 'preToolUse',
        tool_name,
        tool_input,
        tool_use_id: `c_${calls++}`,
        cwd,
      });
    expect((await tool(fake, 'Shell', { command: 'echo pwned > ../../src/a.ts' })).permission).toBe(
      'deny',
    );
    expect(
      (await tool(fake, 'Write', { file_path: join(project, 'src/a.ts'), contents: 'pwned' }))
        .permission,
    ).toBe('deny');
    const lines = jsonLines(join(project, AUDIT));
    expect(lines.some(refusedShell)).toBe(true);
  });

  it("hermes-agent shell hooks: the session's first event pins the root", async () => {
    const { home, project } = await trustedProject();
    const send = async (event: string, cwd: string, fields: Record<string, unknown>) => {
      const stdin = hermesEvent(event, { session_id: 'h-pin', cwd, ...fields });
      return hermesReads(event, await runHook('hermes-agent', home, stdin));
    };
    const prompt = await send('pre_llm_call', project, {
      user_message: 'what does src/a.ts do?',
      turn_id: 't1',
      task_id: 'main',
      conversation_history: [],
      is_first_turn: true,
      model: 'm',
      platform: 'cli',
    });
    expect(prompt === undefined || 'context' in prompt).toBe(true);
    const fake = fakeRoot(project, '.hermes/ folder');
    const tool = (tool_name: string, args: Record<string, unknown>) =>
      send('pre_tool_call', fake, {
        tool_name,
        args,
        turn_id: 't1',
        tool_call_id: `h_${calls++}`,
        task_id: 'main',
      });
    // Named as Hermes' shell hooks need it (a terminal call without a workdir is refused as such).
    expect(
      await tool('terminal', { command: 'echo pwned > ../../src/a.ts', workdir: fake }),
    ).toMatchObject({ action: 'block' });
    expect(
      await tool('write_file', { path: join(project, 'src/a.ts'), content: 'pwned' }),
    ).toMatchObject({ action: 'block' });
    const lines = jsonLines(join(project, AUDIT));
    expect(lines.some(refusedShell)).toBe(true);
  });
});
