import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

/**
 * vitest as `hermes extensions test-suite` finds it: resolved from the framework's own folder, so
 * its own dependencies (a checkout, where vitest is a devDependency), or a sibling package (`npm
 * install -g vitest` beside a global install, a project's devDependency). Undefined when absent.
 */
export function vitestBesideFramework(): string | undefined {
  try {
    return createRequire(join(PACKAGE_ROOT, 'package.json')).resolve('vitest/node');
  } catch {
    return undefined;
  }
}

/**
 * The project the framework is installed in (`<project>/node_modules/hermes-extensions`, the
 * README's install), or undefined for a global install or a checkout.
 */
export function projectOfFramework(): string | undefined {
  const modules = dirname(PACKAGE_ROOT);
  if (basename(modules) !== 'node_modules') return undefined;
  const project = dirname(modules);
  return existsSync(join(project, 'package.json')) ? project : undefined;
}

/** How to install vitest where `test-suite` finds it, for this install of the framework. */
export function installVitestAdvice(): string {
  const project = projectOfFramework();
  return project === undefined
    ? `npm i -g vitest (beside the global hermes-extensions in ${dirname(PACKAGE_ROOT)})`
    : `npm i -D vitest`;
}
