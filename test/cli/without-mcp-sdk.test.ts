import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { installOtherVersion, projectInstallWithout } from '../support/install-without.js';
import { built, root, runProcess } from '../support/run-bin.js';

/**
 * The MCP SDK is an optional peer of hermes-extensions (package.json): a default install leaves
 * it out. `hermes mcp proxy` then refuses to start, naming the package and the command that
 * installs it where the framework finds it — beside hermes-extensions, never in the project the
 * proxy serves, whose own copy would otherwise decide what the proxy relays.
 */

const SDK = '@modelcontextprotocol/sdk';
const { peerDependencies } = (await import(join(root, 'package.json'), { with: { type: 'json' } }))
  .default as { peerDependencies: Record<string, string> };
const version = peerDependencies[SDK] as string;

function proxy(binFile: string, cwd: string) {
  return runProcess(
    process.execPath,
    [binFile, 'mcp', 'proxy', '--cwd', cwd, '--', process.execPath, '-e', ''],
    { env: { HERMES_HOME: tree({ 'config.yaml': '' }) } },
  );
}

describe.runIf(built)('hermes mcp proxy without the MCP SDK', () => {
  it('refuses to start, naming the package and the command that installs it', async () => {
    const install = projectInstallWithout([SDK]);
    const run = await proxy(install.binFile, install.project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${SDK} is not installed`);
    expect(run.stderr).toContain(`run \`npm i -D ${SDK}@${version}\` in ${install.project}`);
  });

  it('does not take the copy the served project has in its own node_modules', async () => {
    const install = projectInstallWithout([SDK]);
    const served = tree({ 'package.json': '{}' });
    mkdirSync(join(served, 'node_modules'));
    symlinkSync(
      join(root, 'node_modules/@modelcontextprotocol'),
      join(served, 'node_modules/@modelcontextprotocol'),
      'dir',
    );
    const run = await proxy(install.binFile, served);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${SDK} is not installed`);
  });

  it('refuses another version, naming the one to install', async () => {
    const install = projectInstallWithout([SDK]);
    installOtherVersion(install, SDK, '1.0.0');
    const run = await proxy(install.binFile, install.project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${SDK} 1.0.0 is installed, not ${version}`);
    expect(run.stderr).toContain(`npm i -D ${SDK}@${version}`);
  });
});
