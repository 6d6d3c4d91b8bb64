import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built, runBin, runProcess } from '../../support/run-bin.js';

/**
 * Cursor runs Claude Code's hooks as well as its own (agents/cursor-claude-hooks.ts): with both
 * hermes hooks installed, one call of Cursor's reaches both. It is judged once — by Cursor's hook
 * — and Claude Code's hook, run by Cursor, answers nothing; without Cursor's hook, Claude Code's
 * judges it; in Claude Code, Claude Code's hook judges as ever.
 */
function setup() {
  const project = tree({ '.git/HEAD': '' });
  const runs = join(project, 'chain-runs.txt');
  const home = tree({
    '.hermes/extensions/guard.ts': tsExtension(
      'guard',
      `hermes.on('intercept_tool_call', (e) => {
        appendFileSync(${JSON.stringify(runs)}, String(e.toolArgs.command) + '\\n');
        return String(e.toolArgs.command).includes('secret') ? block('no secrets') : undefined;
      });`,
      `import { appendFileSync } from 'node:fs';`,
    ),
  });
  const env = { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0' };
  const hook = (
    agent: string,
    event: Record<string, unknown>,
    extra: Record<string, string> = {},
  ) =>
    runProcess(process.execPath, [bin, 'hook', agent], {
      env: { ...env, ...extra },
      stdin: JSON.stringify(event),
    });
  const fields = {
    conversation_id: 'conv-both',
    generation_id: 'gen-1',
    cursor_version: '2.0.77',
    workspace_roots: [project],
  };
  // The call as Cursor gives it to its own hooks, and as it may give it to Claude Code's: with
  // Claude Code's names and Cursor's fields, or Cursor's own event.
  const cursorCall = {
    ...fields,
    hook_event_name: 'preToolUse',
    tool_name: 'Shell',
    tool_input: { command: 'cat secret.txt' },
    tool_use_id: 'call-1',
    cwd: project,
  };
  const claudeCall = {
    ...fields,
    session_id: 'conv-both',
    hook_event_name: 'PreToolUse',
    tool_name: 'Shell',
    tool_input: { command: 'cat secret.txt' },
    tool_use_id: 'call-1',
    cwd: project,
  };
  const chainRuns = () => (existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n') : []);
  const install = (agent: string) => runBin(['hook', 'install', agent], env);
  return { hook, cursorCall, claudeCall, chainRuns, install, project, env };
}

describe.runIf(built)("Cursor runs Claude Code's hooks too", () => {
  it("with both hermes hooks installed, a call is judged once, by Cursor's", async () => {
    const { hook, cursorCall, claudeCall, chainRuns, install } = setup();
    expect((await install('claude-code')).code).toBe(0);
    expect((await install('cursor')).code).toBe(0);
    for (const [event, env] of [
      [claudeCall, {}],
      [cursorCall, {}],
    ] as const) {
      const claude = await hook('claude-code', event, env);
      expect(claude.code).toBe(0);
      expect(claude.stdout).toBe('');
    }
    expect(chainRuns()).toEqual([]);
    const own = await hook('cursor', cursorCall);
    expect(JSON.parse(own.stdout)).toEqual({
      permission: 'deny',
      user_message: 'no secrets',
      agent_message: 'no secrets',
    });
    expect(chainRuns()).toEqual(['cat secret.txt']);
  });

  it('a project cannot switch the Claude Code hook off: not with $CURSOR_VERSION, not with a Cursor hook of its own', async () => {
    const { hook, claudeCall, chainRuns, install, project, env } = setup();
    expect((await install('claude-code')).code).toBe(0);
    // A cloned repository's .claude/settings.json can set `env` for Claude Code's hooks, and its
    // .cursor/hooks.json is its own: neither is the user's Cursor hook.
    expect(
      (await runBin(['hook', 'install', 'cursor', '--project', '--cwd', project], env)).code,
    ).toBe(0);
    // Its command runs the project's own hermes, which the project has (it may be anything).
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules', '.bin', 'hermes'));
    const {
      cursor_version: _,
      workspace_roots: __,
      conversation_id: ___,
      ...inClaude
    } = claudeCall;
    const spoofed = await hook(
      'claude-code',
      { ...inClaude, tool_name: 'Bash' },
      { CURSOR_VERSION: '2.0.77' },
    );
    expect(JSON.parse(spoofed.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const projectOnly = await hook('claude-code', { ...claudeCall, tool_use_id: 'call-2' });
    expect(JSON.parse(projectOnly.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(chainRuns()).toEqual(['cat secret.txt', 'cat secret.txt']);
  });

  it("without Cursor's hermes hook, Claude Code's judges the calls Cursor gives it", async () => {
    const { hook, claudeCall, chainRuns, install } = setup();
    expect((await install('claude-code')).code).toBe(0);
    const claude = await hook('claude-code', claudeCall);
    expect(JSON.parse(claude.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(chainRuns()).toEqual(['cat secret.txt']);
  });

  it("in Claude Code itself, Claude Code's hook judges, Cursor's hook installed or not", async () => {
    const { hook, claudeCall, chainRuns, install } = setup();
    expect((await install('cursor')).code).toBe(0);
    const {
      cursor_version: _,
      workspace_roots: __,
      conversation_id: ___,
      ...inClaude
    } = claudeCall;
    const claude = await hook('claude-code', { ...inClaude, tool_name: 'Bash' });
    expect(JSON.parse(claude.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(chainRuns()).toEqual(['cat secret.txt']);
  });
});
