import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { linkDependencies } from '../support/installed-copy.js';
import { docExample, root } from './doc-blocks.js';
import { consoleSteps, transcriptMismatch } from './transcripts.js';

const run = promisify(execFile);

/** Where the README's transcripts say they ran: the user's home and project. */
const SHOWN_HOME = '/home/you';
const SHOWN_PROJECT = `${SHOWN_HOME}/my-app`;

/** The optional peers (package.json), which `npm i -D hermes-extensions` leaves out. */
const PEERS = ['rolldown', '@anthropic-ai/sandbox-runtime'];
const peerVersion = (name: string) =>
  (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies[name];

/**
 * What `npm i -D hermes-extensions` leaves in a project: the packed files, its dependencies beside
 * it (but not its optional peers), and the two bins.
 */
function installPackage(project: string): void {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ files: Array<{ path: string }> }>;
  const target = join(project, 'node_modules', 'hermes-extensions');
  for (const { path } of packed[0]?.files ?? []) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    cpSync(join(root, path), join(target, path));
  }
  linkDependencies(join(project, 'node_modules'), PEERS);
  mkdirSync(join(project, 'node_modules', '.bin'));
  for (const bin of ['hermes', 'hermes-extensions']) {
    symlinkSync('../hermes-extensions/bin/hermes.js', join(project, 'node_modules', '.bin', bin));
  }
}

/** Whether the project's config, trusted for one run, loads workflow-guard. */
async function loadsWorkflowGuard(project: string, env: Record<string, string>): Promise<boolean> {
  const { stdout } = await run(
    process.execPath,
    [join(project, 'node_modules/.bin/hermes'), 'extensions', 'list', '--json'],
    { cwd: project, env: { ...env, HERMES_TRUST_PROJECT: '1' } },
  );
  const listed = JSON.parse(stdout) as Array<{ name: string; status: string }>;
  return listed.some((e) => e.name === 'workflow-guard' && e.status === 'enabled');
}

describe("the README's quickstart and docs/writing-guards.md, run in a project of its own (needs npm run build)", () => {
  it('each command prints what the page shows, in order, from install to a guard of your own', async () => {
    const home = join(realpathSync(mkdtempSync(join(tmpdir(), 'hermes-quickstart-'))), 'you');
    const project = join(home, 'my-app');
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{ "name": "my-app", "private": true }\n');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      HERMES_HOME: join(home, '.hermes'),
      HERMES_DAEMON: '0',
      HERMES_SLOW_LOAD_MS: '600000',
      npm_config_update_notifier: 'false',
    };
    const shown = (output: string) =>
      output.replaceAll(project, SHOWN_PROJECT).replaceAll(home, SHOWN_HOME);
    const runSteps = async (name: string) => {
      for (const step of consoleSteps(docExample(name))) {
        // `trust` asks on a terminal; here the answer shown in the README is given with --yes.
        const command = / extensions trust\b/.test(step.command)
          ? `${step.command} --yes`
          : step.command;
        const blocked = step.expected.some((line) => line.startsWith('BLOCKED'));
        const result = await run('sh', ['-c', `${command} 2>&1`], { cwd: project, env }).then(
          ({ stdout }) => ({ code: 0, stdout }),
          (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
        );
        // The output says why, when the exit code is not the one shown.
        expect(result.code, `${command}\n${result.stdout}`).toBe(blocked ? 1 : 0);
        const mismatch = transcriptMismatch(step.expected, shown(result.stdout));
        expect(mismatch, `${name}: ${command}`).toBeUndefined();
      }
    };

    expect(consoleSteps(docExample('quickstart-install')).map((s) => s.command)).toEqual([
      'npm i -D hermes-extensions',
    ]);
    installPackage(project);

    const config = docExample('quickstart-config');
    mkdirSync(join(project, '.hermes'));
    writeFileSync(join(project, '.hermes/config.yaml'), config.text);
    expect(await loadsWorkflowGuard(project, env)).toBe(true);
    // `npm i -D rolldown@…` (docs/writing-guards.md): the version the framework pins, linked in
    // beside it as npm would, below.
    expect(consoleSteps(docExample('quickstart-rolldown')).map((s) => s.command)).toEqual([
      `npm i -D rolldown@${peerVersion('rolldown')}`,
    ]);
    await runSteps('quickstart-trust');
    await runSteps('quickstart-hook-install');
    await runSteps('quickstart-test');
    // docs/writing-guards.md, from the same project: a guard scaffolded, trusted and tested...
    symlinkSync(join(root, 'node_modules/rolldown'), join(project, 'node_modules/rolldown'));
    await runSteps('quickstart-init');
    await runSteps('quickstart-test-suite');
    // ...then the recipe and its test in place of the scaffold's.
    const guard = join(project, '.hermes/extensions/no-destructive-shell');
    writeFileSync(join(guard, 'index.ts'), docExample('guard-shell').text);
    writeFileSync(join(guard, 'index.test.ts'), docExample('guard-shell-test').text);
    await runSteps('quickstart-guard-shell');
  }, 240_000);

  it('compares as documented: `…` for any lines or text, and it can fail', () => {
    expect(transcriptMismatch(['a', '…', 'd …'], 'a\nb\nc\nd 12 ms\n')).toBeUndefined();
    expect(transcriptMismatch(['a', 'c'], 'a\nb\nc\n')).toMatch(/expected "c" at line 2/);
    expect(transcriptMismatch(['a'], 'a\nb\n')).toMatch(/more output than shown/);
    expect(transcriptMismatch(['Trust it? [y/N] y', 'ok'], 'ok\n')).toBeUndefined();
  });
});
