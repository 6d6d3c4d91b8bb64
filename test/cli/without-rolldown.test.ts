import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import {
  installBeside,
  installOtherVersion,
  type ProjectInstall,
  projectInstallWithout,
} from '../support/install-without.js';
import { built, hermesAt, root, runProcess } from '../support/run-bin.js';

/**
 * rolldown is an optional peer of hermes-extensions (package.json): a default install leaves it
 * out. Project code (a project's `.hermes/extensions/`, a code config, the project config's
 * `paths`) is trusted and loaded by bundling it with rolldown (src/modules/project-code/), so
 * without it that code cannot be trusted or loaded, and every place that meets it says which
 * file, what is missing and the command that installs it. The shipped extensions by name and the
 * global extensions load without it.
 */

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
};
const version = manifest.peerDependencies.rolldown as string;
const installCommand = `npm i -D rolldown@${version}`;
const ENTRY = '.hermes/extensions/my-guard/index.ts';

/** The installed copy's command line, as a user runs it: no trust given for the run. */
function hermesIn(install: ProjectInstall, home: string, ...args: string[]) {
  return runProcess(process.execPath, [install.binFile, ...args, '--cwd', install.project], {
    env: { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '' },
  });
}

/** A project with one extension of its own, in a default install (no rolldown). */
function projectWithGuard(without: readonly string[] = ['rolldown']): ProjectInstall {
  const install = projectInstallWithout(without);
  write(install.project, {
    [ENTRY]: tsExtension('my-guard', "hermes.on('intercept_tool_call', () => pass());"),
  });
  return install;
}

interface ListedExtension {
  name: string;
  status: string;
  code?: string;
  reason?: string;
}

describe.runIf(built)('an install without rolldown: project code', () => {
  it('trust refuses, naming the file, what is missing and the command, and records nothing', async () => {
    const install = projectWithGuard();
    const home = tree();
    const trust = await hermesIn(install, home, 'extensions', 'trust', '--yes');
    expect(trust.code).toBe(1);
    expect(trust.stderr).toContain(ENTRY);
    expect(trust.stderr).toContain('rolldown is not installed');
    expect(trust.stderr).toContain(`run \`${installCommand}\` in ${install.project}`);
    expect(trust.stderr).not.toMatch(/Cannot find (module|package)/);
    const list = await hermesIn(install, home, 'extensions', 'list', '--json');
    const listed = JSON.parse(list.stdout) as ListedExtension[];
    expect(listed.find((e) => e.name === 'my-guard')?.status).toBe('untrusted');
  });

  it('list shows the extension failed to load (LOAD_FAILED), with the command', async () => {
    const install = projectWithGuard();
    const home = tree();
    const list = await hermesAt(
      install.binFile,
      home,
      install.project,
      'extensions',
      'list',
      '--json',
    );
    const info = (JSON.parse(list.stdout) as ListedExtension[]).find((e) => e.name === 'my-guard');
    expect(info).toMatchObject({ status: 'error', code: 'LOAD_FAILED' });
    expect(info?.reason).toContain(join(install.project, ENTRY));
    expect(info?.reason).toContain('rolldown is not installed');
    expect(info?.reason).toContain(`run \`${installCommand}\` in ${install.project}`);
  });

  it("the agent's hook denies the call with that reason", async () => {
    const install = projectWithGuard();
    const home = tree();
    const run = await runProcess(process.execPath, [install.binFile, 'hook', 'claude-code'], {
      env: { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '1', HERMES_DAEMON: '0' },
      stdin: JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 's1',
        cwd: install.project,
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      }),
    });
    const answer = JSON.parse(run.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    const reason = answer.hookSpecificOutput.permissionDecisionReason;
    expect(reason).toContain(join(install.project, ENTRY));
    expect(reason).toContain(`rolldown is not installed: run \`${installCommand}\``);
  });

  it('a code config cannot be read, naming it and the command', async () => {
    const install = projectInstallWithout(['rolldown']);
    write(install.project, { 'hermes.config.ts': 'export default { extensions: {} };\n' });
    const home = tree();
    const list = await hermesAt(install.binFile, home, install.project, 'extensions', 'list');
    expect(list.code).toBe(2);
    expect(list.stderr).toContain(
      `cannot read config file ${join(install.project, 'hermes.config.ts')}`,
    );
    expect(list.stderr).toContain(`rolldown is not installed: run \`${installCommand}\``);
  });

  it('another version of rolldown is refused too, naming the version to install', async () => {
    const install = projectWithGuard();
    installOtherVersion(install, 'rolldown', '1.0.0');
    const trust = await hermesIn(install, tree(), 'extensions', 'trust', '--yes');
    expect(trust.code).toBe(1);
    expect(trust.stderr).toContain(`rolldown 1.0.0 is installed, not ${version}`);
    expect(trust.stderr).toContain(`run \`${installCommand}\` in ${install.project}`);
  });

  it('once rolldown is installed beside hermes-extensions, trust and load work', async () => {
    const install = projectWithGuard();
    installBeside(install, 'rolldown');
    const home = tree();
    const trust = await hermesIn(install, home, 'extensions', 'trust', '--yes');
    expect(trust.stderr).toBe('');
    expect(trust.code).toBe(0);
    const list = await hermesIn(install, home, 'extensions', 'list', '--json');
    const info = (JSON.parse(list.stdout) as ListedExtension[]).find((e) => e.name === 'my-guard');
    expect(info?.status).toBe('enabled');
  });
});

describe.runIf(built)(
  'an install without rolldown (nor the sandbox runtime): what needs neither',
  () => {
    it('the shipped guard named in config loads and judges calls', async () => {
      const install = projectInstallWithout(['rolldown', '@anthropic-ai/sandbox-runtime']);
      const home = tree();
      write(home, {
        'config.yaml': 'extensions:\n  paths:\n    - hermes-extensions/workflow-guard\n',
      });
      const list = await hermesIn(install, home, 'extensions', 'list', '--json');
      const info = (JSON.parse(list.stdout) as ListedExtension[]).find(
        (e) => e.name === 'workflow-guard',
      );
      expect(info?.status).toBe('enabled');
      const run = await hermesIn(
        install,
        home,
        'extensions',
        'test',
        'intercept_tool_call',
        '--json',
        '--input',
        JSON.stringify({ toolName: 'write', toolArgs: { path: 'src/a.ts', content: 'x' } }),
      );
      const { outcome } = JSON.parse(run.stdout) as {
        outcome: { blocked: boolean; message: string };
      };
      expect(outcome.blocked).toBe(true);
      expect(outcome.message).toContain('workflow-guard');
      expect(outcome.message).not.toContain('rolldown');
    });

    it('a global extension loads', async () => {
      const install = projectInstallWithout(['rolldown']);
      const home = tree();
      write(home, {
        'extensions/mine/index.ts': tsExtension(
          'mine',
          "hermes.on('intercept_tool_call', () => pass());",
        ),
      });
      const list = await hermesIn(install, home, 'extensions', 'list', '--json');
      const info = (JSON.parse(list.stdout) as ListedExtension[]).find((e) => e.name === 'mine');
      expect(info?.status).toBe('enabled');
    });
  },
);

describe.runIf(built)('doctor and init in an install without rolldown', () => {
  it('doctor: an error line when the project has code of its own, with the command', async () => {
    const install = projectWithGuard();
    const doctor = await hermesIn(install, tree(), 'extensions', 'doctor');
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`✗ rolldown: not installed; this project's code needs it`);
    expect(doctor.stdout).toContain(`fix: run \`${installCommand}\` in ${install.project}`);
  });

  it('doctor: an informational line when nothing needs it', async () => {
    const install = projectInstallWithout(['rolldown']);
    const doctor = await hermesIn(install, tree(), 'extensions', 'doctor');
    expect(doctor.stdout).toContain('i rolldown: not installed; nothing here needs it');
    expect(doctor.stdout).toContain(`fix: run \`${installCommand}\` in ${install.project}`);
  });

  it('doctor: a project whose config only names a shipped guard needs none', async () => {
    const install = projectInstallWithout(['rolldown']);
    write(install.project, {
      '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    });
    const home = tree();
    const trust = await hermesIn(install, home, 'extensions', 'trust', '--yes');
    expect(trust.code, trust.stderr).toBe(0);
    const doctor = await hermesIn(install, home, 'extensions', 'doctor');
    expect(doctor.stdout).toContain('i rolldown: not installed; nothing here needs it');
    expect(doctor.stdout).not.toContain('✗');
  });

  it('doctor: the version when it is installed', async () => {
    const install = projectWithGuard();
    installBeside(install, 'rolldown');
    const doctor = await hermesIn(install, tree(), 'extensions', 'doctor');
    expect(doctor.stdout).toContain(`✓ rolldown: ${version} installed`);
    expect(doctor.stdout).not.toContain(installCommand);
  });

  it('init of a project guard says to install rolldown before trust, in one line', async () => {
    const install = projectInstallWithout(['rolldown']);
    const init = await hermesIn(install, tree(), 'extensions', 'init', 'my-guard', '--project');
    expect(init.code).toBe(0);
    const lines = init.stdout.split('\n').filter((line) => line.includes(installCommand));
    expect(lines).toEqual([
      `Before \`npx hermes extensions trust\`, install rolldown (it bundles project code): ${installCommand}`,
    ]);
  });

  it('init of a global extension, which loads without rolldown, does not', async () => {
    const install = projectInstallWithout(['rolldown']);
    const init = await hermesIn(install, tree(), 'extensions', 'init', 'mine');
    expect(init.code).toBe(0);
    expect(init.stdout).not.toContain('rolldown');
  });

  it('init once rolldown is installed does not', async () => {
    const install = projectInstallWithout(['rolldown']);
    installBeside(install, 'rolldown');
    const init = await hermesIn(install, tree(), 'extensions', 'init', 'my-guard', '--project');
    expect(init.stdout).not.toContain('rolldown');
  });
});
