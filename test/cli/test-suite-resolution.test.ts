import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { type Answer, bin, built, hermesAt, root } from '../support/run-bin.js';

/**
 * What an extension's test imports under `hermes extensions test-suite`
 * (src/cli/commands/test-suite.ts): its own `./index.js` (index.ts, as `init` writes it), and the
 * framework's entry points, zod and vitest of the framework that runs the command — its modules,
 * not copies of them.
 */

/** A project extension's test that fails unless each import is the one it should be. */
function probe(dist: string): string {
  const file = (path: string) => JSON.stringify(join(dist, path));
  return `import { expect, it } from 'vitest';
import { z } from 'zod';
import * as framework from 'hermes-extensions';
import * as policy from 'hermes-extensions/policy';
import * as testing from 'hermes-extensions/testing';
import extension from './index.js';

it('imports the extension and the framework that runs the command', async () => {
  // The framework's own index.js has no default export.
  expect(extension?.name).toBe('guard');
  expect(framework.defineExtension).toBe((await import(${file('index.js')})).defineExtension);
  expect(policy.analyzeShell).toBe((await import(${file('policy/index.js')})).analyzeShell);
  expect(testing.scriptedModel).toBe((await import(${file('testing/index.js')})).scriptedModel);
  // A schema the framework made with its zod is an object of the test's zod's class.
  const { hermesConfigSchema } = await import(${file('config/schema.js')});
  expect(hermesConfigSchema.constructor).toBe(z.ZodObject);
});
`;
}

async function runProbe(binFile: string, project: string, dist: string): Promise<Answer> {
  const home = tree();
  const init = await hermesAt(binFile, home, project, 'extensions', 'init', 'guard', '--project');
  expect(init.code).toBe(0);
  write(project, { '.hermes/extensions/guard/imports.test.ts': probe(dist) });
  return hermesAt(binFile, home, project, 'extensions', 'test-suite', 'guard');
}

describe.runIf(built)('hermes extensions test-suite: what a test imports', () => {
  it('with the framework installed in the project, as the README installs it', async () => {
    const project = tree({ '.git/HEAD': '', 'package.json': '{ "name": "app" }' });
    // The built package as npm puts it in the project; its dependencies are the checkout's.
    const installed = join(project, 'node_modules/hermes-extensions');
    for (const entry of ['package.json', 'bin', 'dist', 'loader']) {
      cpSync(join(root, entry), join(installed, entry), { recursive: true });
    }
    symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'));

    const run = await runProbe(join(installed, 'bin/hermes.js'), project, join(installed, 'dist'));
    // The scaffold's seven cases and the probe.
    expect(run.stdout + run.stderr).toMatch(/Tests\s+8 passed/);
    expect(run.code).toBe(0);
  });

  it("with the project's own copies of the framework, zod and vitest, none of them imported", async () => {
    const refuse = (name: string) => ({
      [`node_modules/${name}/package.json`]: JSON.stringify({
        name,
        type: 'module',
        main: './index.js',
        exports: { '.': './index.js', './*': './index.js' },
      }),
      [`node_modules/${name}/index.js`]: `throw new Error("the project's own ${name} was imported");`,
    });
    const project = tree({
      '.git/HEAD': '',
      'package.json': '{ "name": "app" }',
      ...refuse('hermes-extensions'),
      ...refuse('zod'),
      ...refuse('vitest'),
    });

    const run = await runProbe(bin, project, join(root, 'dist'));
    expect(run.stdout + run.stderr).not.toContain("the project's own");
    expect(run.stdout + run.stderr).toMatch(/Tests\s+8 passed/);
    expect(run.code).toBe(0);
  });
});
