import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedCopy } from '../support/installed-copy.js';
import { built, runProcess } from '../support/run-bin.js';

// `npx hermes demo` in a user's project runs the installed copy: only the files the package
// ships, none of this repository's others.
describe.runIf(built)('hermes demo from an installed copy of the package', () => {
  it('runs the whole session from the shipped files alone', async () => {
    const { project, bin } = installedCopy();
    const run = await runProcess(process.execPath, [bin, 'demo'], {
      cwd: project,
      env: { HERMES_HOME: join(project, 'hermes-home') },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/In all: 6 tool calls, 2 blocked; the fix landed after the plan\./);
    expect(run.code).toBe(0);
  });

  it('says which shipped file is missing, and what to do, when the sample project is gone', async () => {
    const { project, packageDir, bin } = installedCopy();
    rmSync(join(packageDir, 'demo'), { recursive: true, force: true });
    rmSync(join(packageDir, 'examples'), { recursive: true, force: true });
    const run = await runProcess(process.execPath, [bin, 'demo'], {
      cwd: project,
      env: { HERMES_HOME: join(project, 'hermes-home') },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^hermes: the demo's sample project is missing from this installation of hermes-extensions \(.*sample-project\); reinstall the package \(npm install --save-dev hermes-extensions\)\n$/,
    );
    expect(run.stderr).not.toMatch(/lstat|ENOENT|at /);
  });
});
