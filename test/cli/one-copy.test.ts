import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { type InstalledCopy, installedCopy } from '../support/installed-copy.js';
import { built, root, runProcess } from '../support/run-bin.js';

/**
 * hermes-extensions installed twice, in a project (`npm i -D`) and globally (`npm i -g`, as
 * docs/cli.md offers): the project's copy decides. A global `hermes` in a project that has its
 * own copy hands an interactive command over to it, once, when the project is trusted (the
 * project's copy is the project's code); never the hook, the daemon or `serve`, which the user
 * installed from their own copy. Otherwise it answers itself and names `npx hermes`.
 */

const VERSION = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const ENTRY = '.hermes/extensions/my-guard/index.ts';

/** Each run's own homes, no trust given for the run, no daemon, no npm around it. */
function environment(home: string, extra: Record<string, string> = {}) {
  return {
    HOME: home,
    HERMES_HOME: join(home, '.hermes'),
    HERMES_TRUST_PROJECT: '',
    HERMES_DAEMON: '0',
    HERMES_EXTENSIONS_HANDED_OVER: undefined,
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    npm_command: '',
    npm_execpath: '',
    npm_config_user_agent: '',
    ...extra,
  };
}

/** `bin` (a global install's `<prefix>/bin/hermes`) run in `cwd`, as the user types it. */
function run(
  bin: string,
  cwd: string,
  home: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
) {
  return runProcess(bin, args, {
    cwd,
    env: environment(home, options.env),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}

/**
 * A project whose node_modules/hermes-extensions is a stand-in of `version` that only records
 * how it was run (arguments, folder, the hand-over marker) into its own folder and exits 7: what
 * a cloned repository can ship as "its copy".
 */
function projectWithRecorder(version = VERSION): { project: string; record: string } {
  const project = tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    'package.json': '{ "name": "user-project", "private": true }\n',
    [ENTRY]: tsExtension('my-guard'),
    'src/deep/.keep': '',
    'node_modules/hermes-extensions/package.json': JSON.stringify({
      name: 'hermes-extensions',
      version,
      bin: { hermes: './bin/hermes.js' },
    }),
    'node_modules/hermes-extensions/bin/hermes.js': `#!/usr/bin/env node
require('node:fs').writeFileSync(require('node:path').join(__dirname, '..', 'ran.json'), JSON.stringify({
  argv: process.argv.slice(2),
  cwd: process.cwd(),
  marker: process.env.HERMES_EXTENSIONS_HANDED_OVER ?? null,
}));
if (process.argv.includes('die')) process.kill(process.pid, 'SIGTERM');
process.exit(7);
`,
  });
  return { project, record: join(project, 'node_modules/hermes-extensions/ran.json') };
}

function recorded(record: string): { argv: string[]; cwd: string; marker: string | null } {
  return JSON.parse(readFileSync(record, 'utf8'));
}

/** Trusts `project` with the global copy (the project is not trusted yet: it answers itself). */
async function trust(global: InstalledCopy, project: string, home: string): Promise<void> {
  const trusted = await run(global.bin, project, home, ['extensions', 'trust', '--yes']);
  expect(trusted.stderr).toBe('');
  expect(trusted.code).toBe(0);
}

const PRE_TOOL_USE = JSON.stringify({
  session_id: 's1',
  hook_event_name: 'PreToolUse',
  tool_name: 'Read',
  tool_input: { file_path: 'README.md' },
});

describe.runIf(built)('a global hermes in a project with its own copy', () => {
  it('hands an interactive command to the project’s copy once it is trusted: argv, folder, exit code', async () => {
    const global = installedCopy({ global: true });
    const { project, record } = projectWithRecorder();
    const home = tree();
    await trust(global, project, home);
    expect(existsSync(record)).toBe(false);

    const deep = join(project, 'src/deep');
    const listed = await run(global.bin, deep, home, ['extensions', 'list', '--json']);
    expect(listed.code).toBe(7);
    expect(recorded(record)).toEqual({
      argv: ['extensions', 'list', '--json'],
      cwd: deep,
      marker: expect.any(String),
    });

    // --cwd names the project from elsewhere, as every command takes it.
    const elsewhere = tree();
    const doctor = await run(global.bin, elsewhere, home, [
      'extensions',
      'doctor',
      '--cwd',
      project,
    ]);
    expect(doctor.code).toBe(7);
    expect(recorded(record).argv).toEqual(['extensions', 'doctor', '--cwd', project]);
    expect(recorded(record).cwd).toBe(elsewhere);

    // Ended by a signal, it ends the global hermes by the same signal.
    const ended = spawnSync(global.bin, ['extensions', 'die'], {
      cwd: project,
      env: Object.fromEntries(
        Object.entries({ ...process.env, ...environment(home) }).filter(([, v]) => v !== undefined),
      ),
    });
    expect(ended.signal).toBe('SIGTERM');
    expect(recorded(record).argv).toEqual(['extensions', 'die']);
  });

  it('the real copies: the project’s answers, with its own shipped extensions', async () => {
    const global = installedCopy({ global: true });
    const own = installedCopy();
    write(own.project, { [ENTRY]: tsExtension('my-guard') });
    const home = tree({
      '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    });
    await trust(global, own.project, home);
    const listed = await run(global.bin, own.project, home, ['extensions', 'list', '--json']);
    expect(listed.stderr).toBe('');
    const guard = (JSON.parse(listed.stdout) as Array<{ name: string; path?: string }>).find(
      (extension) => extension.name === 'workflow-guard',
    );
    expect(guard?.path).toBe(join(own.packageDir, 'extensions/workflow-guard'));
  });

  it('never hands over the hook, the daemon or serve: the user installed those from this copy', async () => {
    const global = installedCopy({ global: true });
    const { project, record } = projectWithRecorder();
    const home = tree();
    await trust(global, project, home);
    const hook = await run(global.bin, project, home, ['hook', 'claude-code'], {
      stdin: PRE_TOOL_USE,
    });
    expect(hook.code).toBe(0);
    const daemon = await run(global.bin, project, home, ['daemon', 'status', '--json']);
    expect(daemon.stdout).toContain('[');
    const serve = await run(global.bin, project, home, ['extensions', 'serve', '--stdio'], {
      stdin: '',
    });
    expect(serve.code).toBe(0);
    expect(existsSync(record)).toBe(false);
  });

  it('never hands over trust or approvals: a trusted project’s later copy must not show the review', async () => {
    const global = installedCopy({ global: true });
    const { project, record } = projectWithRecorder();
    const home = tree();
    await trust(global, project, home);
    const review = await run(global.bin, project, home, ['extensions', 'trust', '--yes']);
    expect(review.code, review.stderr).toBe(0);
    const short = await run(global.bin, project, home, ['trust', '--yes']);
    expect(short.code, short.stderr).toBe(0);
    const approvals = await run(global.bin, project, home, ['extensions', 'approvals', 'list']);
    expect(approvals.code, approvals.stderr).toBe(0);
    expect(existsSync(record)).toBe(false);
  });

  it('never runs an untrusted project’s copy: it answers itself and names npx hermes', async () => {
    const global = installedCopy({ global: true });
    const { project, record } = projectWithRecorder('9.9.9');
    const home = tree();
    const listed = await run(global.bin, project, home, ['extensions', 'list']);
    expect(existsSync(record)).toBe(false);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('hermes-extensions 9.9.9');
    expect(listed.stderr).toContain('`npx hermes extensions list`');
  });

  it('hands over once: a command already handed over is answered where it lands', async () => {
    const global = installedCopy({ global: true });
    const { project, record } = projectWithRecorder();
    const home = tree();
    await trust(global, project, home);
    const listed = await run(global.bin, project, home, ['extensions', 'list'], {
      env: { HERMES_EXTENSIONS_HANDED_OVER: '/elsewhere/hermes-extensions' },
    });
    expect(listed.code).toBe(0);
    expect(existsSync(record)).toBe(false);
  });

  it('a global copy without rolldown names the project’s own copy, npx hermes, for its project code', async () => {
    const global = installedCopy({ global: true, without: ['rolldown'] });
    const own = installedCopy();
    write(own.project, { [ENTRY]: tsExtension('my-guard') });
    const home = tree();
    const trusted = await run(global.bin, own.project, home, ['extensions', 'trust', '--yes']);
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).toContain('rolldown is not installed');
    expect(trusted.stderr).toContain('`npx hermes extensions trust --yes`');
    // The project's own copy has rolldown beside it: it trusts the project.
    const local = await run(own.bin, own.project, home, ['extensions', 'trust', '--yes']);
    expect(local.code).toBe(0);
  });
});

describe.runIf(built)('the Hermes agent plugin installed by another copy', () => {
  const pluginCheck = async (copy: InstalledCopy, cwd: string, home: string) => {
    const doctor = await run(copy.bin, cwd, home, ['extensions', 'doctor', '--json']);
    const checks = (
      JSON.parse(doctor.stdout) as {
        checks: Array<{ level: string; subject: string; message: string; fix?: string }>;
      }
    ).checks;
    return checks.find((check) => check.subject.startsWith('Hermes agent plugin'));
  };

  it('of the same version is fine for the other copy’s doctor', async () => {
    const global = installedCopy({ global: true });
    const own = installedCopy();
    const home = tree();
    const installed = await run(global.bin, own.project, home, [
      'hook',
      'install',
      'hermes-agent',
      '--plugin',
    ]);
    expect(installed.code).toBe(0);
    const check = await pluginCheck(own, own.project, home);
    expect(check?.level).toBe('ok');
    expect(check?.message).toContain(global.packageDir);
  });

  it('of another version is an error that says which copy and what to run', async () => {
    const global = installedCopy({ global: true });
    const own = installedCopy();
    const home = tree();
    await run(global.bin, own.project, home, ['hook', 'install', 'hermes-agent', '--plugin']);
    const record = join(home, '.hermes/plugins/hermes-extensions/install.json');
    const written = JSON.parse(readFileSync(record, 'utf8')) as Record<string, unknown>;
    writeFileSync(record, JSON.stringify({ ...written, version: '0.0.1' }));
    const check = await pluginCheck(own, own.project, home);
    expect(check?.level).toBe('error');
    expect(check?.message).toContain(`hermes-extensions 0.0.1 at ${global.packageDir}`);
    expect(check?.fix).toContain('npx hermes hook install hermes-agent --plugin');
  });
});
