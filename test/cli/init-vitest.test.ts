import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built, hermesAt, root, runProcess } from '../support/run-bin.js';

/**
 * What `hermes extensions init` says about running the new extension's test: `test-suite` runs it
 * with vitest found beside the framework, which a checkout has (a devDependency) and an install in
 * a project does not, until the project installs it.
 */

/**
 * The built package as npm installs it in a project: its dependencies beside it, its
 * devDependencies (vitest among them) not — each dependency a link to the checkout's copy.
 */
function projectWithFramework(): { project: string; binFile: string } {
  const project = tree({ '.git/HEAD': '', 'package.json': '{ "name": "app" }' });
  const modules = join(project, 'node_modules');
  const installed = join(modules, 'hermes-extensions');
  for (const entry of ['package.json', 'bin', 'dist', 'loader', 'extensions']) {
    cpSync(join(root, entry), join(installed, entry), { recursive: true });
  }
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === 'vitest' || name.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  return { project, binFile: join(installed, 'bin/hermes.js') };
}

describe.runIf(built)('hermes extensions init: running the new test', () => {
  it('in a project without vitest, says to install it there, and test-suite then runs the test', async () => {
    const { project, binFile } = projectWithFramework();
    const home = tree();
    const init = await hermesAt(binFile, home, project, 'extensions', 'init', 'guard', '--project');
    expect(init.code).toBe(0);
    expect(init.stdout).not.toContain('nothing to install');
    expect(init.stdout).toContain(
      `To run its test, install vitest in ${project} first: npm i -D vitest`,
    );
    expect(init.stdout).toContain('then: npx hermes extensions test-suite guard');

    // As `npm i -D vitest` would leave it.
    symlinkSync(join(root, 'node_modules/vitest'), join(project, 'node_modules/vitest'));
    const again = await hermesAt(
      binFile,
      home,
      project,
      'extensions',
      'init',
      'other',
      '--project',
    );
    expect(again.stdout).toContain(
      'Run its test (vitest is installed): npx hermes extensions test-suite other',
    );
    expect(again.stdout).not.toContain('npm i -D vitest');
    const run = await hermesAt(binFile, home, project, 'extensions', 'test-suite', 'guard');
    expect(run.stdout + run.stderr).toMatch(/Tests\s+\d+ passed/);
    expect(run.code).toBe(0);
  });

  it('in the checkout, which has vitest, says to run it', async () => {
    const home = tree();
    const init = await runProcess(
      process.execPath,
      [join(root, 'bin/hermes.js'), 'extensions', 'init', 'guard'],
      {
        env: { HERMES_HOME: home, HOME: home },
      },
    );
    expect(init.stdout).toContain(
      'Run its test (vitest is installed): hermes extensions test-suite guard',
    );
  });
});
