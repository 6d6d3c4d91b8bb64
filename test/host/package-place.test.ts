import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectHoldingPackage } from '../../src/host/command-hook/package-place.js';
import { tree } from '../support/fixtures.js';

/**
 * A user-wide hook that runs a copy of the package inside a project is open to an agent working
 * in that project (protected ground leaves the project's own copy out): install says so.
 */
describe('the project that holds the package a hook runs', () => {
  it("is the project whose node_modules it is in, by that project's package.json", () => {
    const project = tree({ 'package.json': '{"name":"app"}\n' });
    const copy = join(project, 'node_modules', 'hermes-extensions');
    mkdirSync(copy, { recursive: true });
    expect(projectHoldingPackage(copy)).toBe(project);
    // A copy a dependency installed for itself, nested: the project's all the same.
    const nested = join(project, 'node_modules', 'tool', 'node_modules', 'hermes-extensions');
    mkdirSync(nested, { recursive: true });
    expect(projectHoldingPackage(nested)).toBe(project);
  });

  it('is none for a copy installed apart: a global prefix, nvm, a checkout', () => {
    const prefix = tree({ 'bin/.keep': '' });
    expect(projectHoldingPackage(join(prefix, 'lib', 'node_modules', 'hermes-extensions'))).toBe(
      undefined,
    );
    expect(projectHoldingPackage(tree({ 'package.json': '{}' }))).toBeUndefined();
  });
});
