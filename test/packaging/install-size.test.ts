import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeSize,
  INSTALL_SIZE_LIMIT,
  measureNodeModules,
} from '../../scripts/install-size.mjs';
import { tree, write } from '../support/fixtures.js';
import {
  installTarball,
  newProject,
  packPackage,
  removeFolder,
  tempFolder,
} from '../support/packed-package.js';
import { type Answer, built } from '../support/run-bin.js';

/**
 * The default install's footprint (issue 24: at most 25 MB): the packed package installed with
 * npm into a fresh project, from the registry, as a user installs it, and everything under its
 * node_modules summed as `du -s --apparent-size` counts it (scripts/install-size.mjs, which
 * `npm run size` runs too). The optional peers (OpenTelemetry, rolldown, the sandbox runtime)
 * are not part of it: a default install leaves them out.
 */
describe.runIf(built)('the default install of the packed package', () => {
  let folder: string | undefined;
  let project: string;
  let installed: Answer;

  beforeAll(async () => {
    folder = tempFolder('hermes-install-size-');
    const tarball = await packPackage(folder);
    project = await newProject(join(folder, 'my-agent'));
    installed = await installTarball(project, tarball);
  }, 600_000);

  afterAll(() => removeFolder(folder));

  it('leaves the optional peers out', () => {
    expect(installed.code, installed.stderr).toBe(0);
    for (const name of ['rolldown', '@anthropic-ai/sandbox-runtime', '@opentelemetry/api']) {
      expect(existsSync(join(project, 'node_modules', name)), name).toBe(false);
    }
  });

  it('is at most 25 MB', () => {
    expect(installed.code, installed.stderr).toBe(0);
    const size = measureNodeModules(join(project, 'node_modules'));
    expect(size.total, describeSize(size)).toBeLessThanOrEqual(INSTALL_SIZE_LIMIT);
  });
});

describe('the measure', () => {
  it('counts every entry under node_modules, by the package it comes with', () => {
    const modules = join(tree(), 'node_modules');
    write(modules, {
      'a/index.js': 'x'.repeat(1000),
      'a/node_modules/b/index.js': 'y'.repeat(500),
      '@scope/c/index.js': 'z'.repeat(50_000),
    });
    const size = measureNodeModules(modules);
    expect(size.packages.map((p) => p.name)).toEqual(['@scope/c', 'a']);
    // Folders count as du counts them: their own entry's size, besides the files in them.
    expect(size.packages[0]?.bytes).toBeGreaterThan(50_000);
    expect(size.packages[1]?.bytes).toBeGreaterThan(1500);
    expect(size.total).toBeGreaterThan(51_500);
    expect(describeSize(size)).toMatch(
      /^node_modules: 0\.\d MB \(\d+ bytes, 2 packages\)\n {2}.*@scope\/c\n/,
    );
  });
});
