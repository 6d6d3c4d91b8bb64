import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { installBeside, projectInstallWithout } from '../support/install-without.js';
import { built, hermesAt, root } from '../support/run-bin.js';

/**
 * The Cedar engine is an optional peer of hermes-extensions (package.json): a default install
 * leaves it out. A declared Cedar policy then cannot decide: it fails to load, saying which
 * package to install and how, and tool calls are refused as for any guard that failed to load.
 * It is found beside hermes-extensions, never in the project the agent works in.
 */
const CEDAR = '@cedar-policy/cedar-wasm';
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
};
const installCommand = `npm i -D ${CEDAR}@${manifest.peerDependencies[CEDAR]}`;

const home = () =>
  tree({
    'config.yaml': 'extensions:\n  cedar-guard:\n    kind: cedar\n    policy: agent.cedar\n',
    'agent.cedar':
      '@reason("no rm")\nforbid(principal, action, resource) when { context.command like "rm*" };\n',
  });

async function call(binFile: string, where: string, command: string, hermesHome: string) {
  const run = await hermesAt(
    binFile,
    hermesHome,
    where,
    'extensions',
    'test',
    'intercept_tool_call',
    '--json',
    '--input',
    JSON.stringify({ toolName: 'bash', toolArgs: { command } }),
  );
  return (JSON.parse(run.stdout) as { outcome: { blocked: boolean; message?: string } }).outcome;
}

describe.runIf(built)('an install without the Cedar engine', () => {
  it('refuses tool calls, naming the package and the command that installs it', async () => {
    const install = projectInstallWithout([CEDAR]);
    const outcome = await call(install.binFile, install.project, 'ls', home());
    expect(outcome.blocked).toBe(true);
    expect(outcome.message).toContain(`${CEDAR} is not installed`);
    expect(outcome.message).toContain(`run \`${installCommand}\` in ${install.project}`);
  });

  it('decides once it is installed beside hermes-extensions', async () => {
    const install = projectInstallWithout([CEDAR]);
    installBeside(install, CEDAR);
    const hermesHome = home();
    expect((await call(install.binFile, install.project, 'ls', hermesHome)).blocked).toBe(false);
    expect(await call(install.binFile, install.project, 'rm x', hermesHome)).toMatchObject({
      blocked: true,
      message: 'no rm',
    });
  });

  it('doctor names the engine, the policy that cannot load without it, and the command', async () => {
    const install = projectInstallWithout([CEDAR]);
    const hermesHome = home();
    const doctor = async () => {
      const run = await hermesAt(
        install.binFile,
        hermesHome,
        install.project,
        'extensions',
        'doctor',
        '--json',
      );
      const { checks } = JSON.parse(run.stdout) as {
        checks: Array<{ level: string; subject: string; message: string; fix?: string }>;
      };
      return checks.find((check) => check.subject === CEDAR);
    };
    const missing = await doctor();
    expect(missing?.level).toBe('error');
    expect(missing?.message).toContain('not installed; cedar-guard cannot load without it');
    expect(missing?.fix).toContain(installCommand);
    installBeside(install, CEDAR);
    expect(await doctor()).toMatchObject({ level: 'ok' });
  });
});
