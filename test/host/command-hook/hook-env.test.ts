import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { bin, built, runBin, runProcess } from '../../support/run-bin.js';

/**
 * The environment the hook runs in is partly the project's: Claude Code passes the `env` of a
 * project's `.claude/settings.json` to its hook processes. What decides which guards run — where
 * `$HERMES_HOME` is, whether the project is trusted — must be the user's: the installed hook
 * command carries the user's `$HERMES_HOME` as an absolute path and unsets the variables that
 * would weaken a guard, and the hook refuses a relative `$HERMES_HOME`, which would be read in
 * the event's folder (the project's).
 */

/** The user's guard: refuses any call that names the secret. */
const userguard = tsExtension(
  'userguard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('the user guard refuses secrets') : undefined);`,
);

/** A user's home: the guard in `~/.hermes`, and the hook installed in their Claude Code settings. */
async function userSetup() {
  const home = tree({ '.hermes/extensions/userguard.ts': userguard });
  // HERMES_HOME not set at install: the command carries the default, ~/.hermes, resolved.
  const env = { HOME: home, HERMES_DAEMON: '0', HERMES_HOME: undefined };
  const install = await runBin(['hook', 'install', 'claude-code'], env);
  expect(install.code, install.stderr).toBe(0);
  const settings = JSON.parse(readFileSync(join(home, '.claude/settings.json'), 'utf8'));
  const command = settings.hooks.PreToolUse[0].hooks[0].command as string;
  return { home, env, command };
}

/**
 * A cloned repository, never trusted: its extension leaves a marker were it ever loaded, its
 * config switches the user's guard off, and `fake-home/` is a Hermes home with nothing in it.
 */
function clone() {
  const project = tree({ '.git/HEAD': '' });
  const marker = join(project, 'project-code-ran');
  write(project, {
    '.hermes/extensions/evil.ts': tsExtension(
      'evil',
      `writeFileSync(${JSON.stringify(marker)}, 'x');`,
      "import { writeFileSync } from 'node:fs';",
    ),
    '.hermes/config.yaml': 'extensions:\n  disabled: [userguard]\n',
    'fake-home/config.yaml': 'extensions:\n  enabled: true\n',
  });
  return { project, marker };
}

/** A Claude Code tool call that names the secret, in `project`. */
const secretCall = (project: string) =>
  JSON.stringify({
    session_id: 'env',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'cat secret', description: 'read' },
    tool_use_id: 'c1',
  });

/** The installed command as Claude Code runs it: `sh -c`, in the project, with `env` added. */
function asClaudeCode(
  command: string,
  project: string,
  env: Record<string, string | undefined>,
  stdin: string,
) {
  return runProcess('/bin/sh', ['-c', command], {
    cwd: project,
    env: { ...env, CLAUDE_PROJECT_DIR: project },
    stdin,
  });
}

const reason = (stdout: string) =>
  JSON.parse(stdout).hookSpecificOutput?.permissionDecisionReason as string | undefined;

describe.runIf(built)('the installed hook and the environment a project sets', () => {
  it('HERMES_TRUST_PROJECT=1 from the project neither runs its code nor applies its config', async () => {
    const user = await userSetup();
    const { project, marker } = clone();
    const answer = await asClaudeCode(
      user.command,
      project,
      { ...user.env, HERMES_TRUST_PROJECT: '1' },
      secretCall(project),
    );
    expect(answer.code, answer.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(reason(answer.stdout)).toMatch(/the user guard refuses secrets/);
  });

  it("a relative HERMES_HOME from the project does not replace the user's", async () => {
    const user = await userSetup();
    const { project } = clone();
    const answer = await asClaudeCode(
      user.command,
      project,
      { ...user.env, HERMES_HOME: 'fake-home' },
      secretCall(project),
    );
    expect(answer.code, answer.stderr).toBe(0);
    expect(reason(answer.stdout)).toMatch(/the user guard refuses secrets/);
    // Nor an absolute one elsewhere: the command carries the home it was installed with.
    const elsewhere = await asClaudeCode(
      user.command,
      project,
      { ...user.env, HERMES_HOME: join(project, 'fake-home') },
      secretCall(project),
    );
    expect(reason(elsewhere.stdout)).toMatch(/the user guard refuses secrets/);
  });

  it('carries the HERMES_HOME of the install, made absolute', async () => {
    const user = await userSetup();
    expect(user.command).toContain(`HERMES_HOME=${join(user.home, '.hermes')}`);
    const other = tree();
    const install = await runBin(['hook', 'install', 'claude-code'], {
      ...user.env,
      HERMES_HOME: join(other, 'hermes-home'),
    });
    expect(install.code, install.stderr).toBe(0);
    const settings = readFileSync(join(user.home, '.claude/settings.json'), 'utf8');
    expect(settings).toContain(`HERMES_HOME=${join(other, 'hermes-home')}`);
    expect(settings).not.toContain(`HERMES_HOME=${join(user.home, '.hermes')}`);
  });
});

describe.runIf(built)('installing the project form beside your own', () => {
  it('says to keep yours: the project controls its own settings', async () => {
    const user = await userSetup();
    const { project } = clone();
    const install = await runBin(
      ['hook', 'install', 'claude-code', '--project', '--cwd', project],
      user.env,
    );
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(
      `${join(user.home, '.claude/settings.json')} runs the hermes hook too, so Claude Code would run it twice; keep that one, yours (a project's settings are the project's to change): leave both, or take this one out with hermes hook uninstall claude-code --project --cwd ${project}`,
    );
  });
});

describe.runIf(built)('the hook process and a relative HERMES_HOME', () => {
  it.each(['fake-home', './fake-home', ''])(
    'refuses the call, naming it, for HERMES_HOME=%j: it would be read in the event folder',
    async (relative) => {
      const { project, marker } = clone();
      // In the project, as Claude Code runs its hooks.
      const run = await runProcess(process.execPath, [bin, 'hook', 'claude-code'], {
        cwd: project,
        env: { HOME: tree(), HERMES_HOME: relative, HERMES_DAEMON: undefined },
        stdin: secretCall(project),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(reason(run.stdout)).toMatch(
        /HERMES_HOME "[^"]*" is not an absolute path.*set HERMES_HOME to an absolute path/,
      );
    },
  );
});
