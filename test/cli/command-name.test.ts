import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { installedCopy } from '../support/installed-copy.js';
import { built, bin as repositoryBin, runProcess } from '../support/run-bin.js';

/** A git project with an extension of its own, never trusted: list tells what to run. */
function untrustedProject(): string {
  return tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
}

/** An installed copy whose project has an extension of its own, never trusted. */
function untrustedInstall(): ReturnType<typeof installedCopy> {
  const copy = installedCopy();
  write(copy.project, { '.hermes/extensions/local.ts': tsExtension('local') });
  return copy;
}

/** `list` in `cwd`, run as `argv` (a program and its first arguments), with its own homes. */
async function listWith(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const home = tree();
  const [program, ...args] = argv as [string, ...string[]];
  return runProcess(program, [...args, 'extensions', 'list'], {
    cwd,
    env: {
      HOME: home,
      HERMES_HOME: join(home, '.hermes'),
      HERMES_TRUST_PROJECT: '',
      npm_command: '',
      npm_execpath: '',
      npm_config_user_agent: '',
      ...env,
    },
  });
}

// Advice names the command the way the user can run it: a project's own install is run with
// npx (it is not on the PATH), a global install or the repository's bin as `hermes`; run in the
// project, with no --cwd.
describe.runIf(built)('messages name the command as the user runs it', () => {
  it('npx hermes from a project’s node_modules/.bin, as npx and npm scripts run it', async () => {
    const { project, bin } = untrustedInstall();
    const run = await listWith([bin], project);
    expect(run.stdout).toContain(`then trust it with: npx hermes extensions trust\n`);
  });

  it('npx hermes from a project’s install run by its path', async () => {
    const { project, packageDir } = untrustedInstall();
    const run = await listWith([process.execPath, join(packageDir, 'bin/hermes.js')], project);
    expect(run.stdout).toContain(`then trust it with: npx hermes extensions trust\n`);
  });

  it('hermes from a global install', async () => {
    const { bin } = installedCopy({ global: true });
    const project = untrustedProject();
    const run = await listWith([bin], project);
    expect(run.stdout).toContain(`then trust it with: hermes extensions trust\n`);
    expect(run.stdout).not.toContain('npx');
  });

  it('hermes from the repository’s own bin, even below an npm command', async () => {
    const project = untrustedProject();
    const own = await listWith([process.execPath, repositoryBin], project);
    expect(own.stdout).toContain(`then trust it with: hermes extensions trust\n`);
    expect(own.stdout).not.toContain('npx');
    // npx and npm scripts pass their variables to every process below them, whatever it runs.
    const below = await listWith([process.execPath, repositoryBin], project, {
      npm_command: 'exec',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npx-cli.js',
      npm_config_user_agent: 'npm/10.8.2 node/v20.19.0 linux x64',
    });
    expect(below.stdout).toContain(`then trust it with: hermes extensions trust\n`);
  });

  it('in the refusal a hook gives while an extension is broken, from a project’s install', async () => {
    const { project, bin } = installedCopy();
    const home = tree({ 'extensions/broken.ts': 'export default {' });
    const run = await runProcess(bin, ['hook', 'claude-code'], {
      cwd: project,
      env: { HOME: home, HERMES_HOME: home, HERMES_DAEMON: '0', npm_command: '' },
      stdin: JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 's',
        cwd: project,
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      }),
    });
    const reason = JSON.parse(run.stdout).hookSpecificOutput.permissionDecisionReason as string;
    expect(reason).toContain('`npx hermes extensions doctor` shows the whole error');
    expect(reason).toContain('`npx hermes extensions disable broken`');
  });
});
