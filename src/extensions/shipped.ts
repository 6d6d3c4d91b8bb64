import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFile } from '../config/locations.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { compiledIn } from './compiled-in.js';

/** The package's name: `hermes-extensions/<name>` names one of its shipped extensions. */
export const SHIPPED_PACKAGE = 'hermes-extensions';

/**
 * The extensions shipped with hermes-extensions (`extensions/` in the package: workflow-guard,
 * secrets-guard, audit-log, module-router, otel), named `hermes-extensions/<name>` in two places that mean the
 * same code:
 *
 * - in config, `extensions: { paths: ['hermes-extensions/workflow-guard'] }` loads the folder
 *   `extensions/<name>/` of the framework that is running (from its build, the compiled copy of
 *   that build: `shippedExtension`) — the package already executing, never
 *   a copy found by walking up `node_modules` from the config. A project's `node_modules` is
 *   files the repository controls (a clone may commit a fake `node_modules/hermes-extensions/`),
 *   and the project's trust does not cover it (src/modules/project-code/framework.ts keeps the
 *   framework out of project code); resolving the name there would run unreviewed code under the
 *   name of a guard the user trusts. So the name is a name, not a lookup: nothing on disk beside
 *   the config can stand in for it (write `./hermes-extensions/…` to mean a folder there).
 * - in code, `import workflowGuard from 'hermes-extensions/workflow-guard'` is the package's
 *   `exports` entry for the same folder, compiled (`dist/shipped/<name>/`, by the build), so a
 *   host that builds its runtime with `createRuntime({ extensions: [workflowGuard] })` gets the
 *   guard that config names, without a TypeScript loader.
 */
export function shippedExtensionsDir(): string {
  return join(PACKAGE_ROOT, 'extensions');
}

/**
 * The shipped extensions' names, sorted: each folder of `extensions/` with an `index.ts` (the
 * package ships the sources; the build compiles them into `dist/shipped/`).
 */
export function shippedNames(): string[] {
  const dir = shippedExtensionsDir();
  let items: string[];
  try {
    items = readdirSync(dir);
  } catch {
    return [];
  }
  return items.filter((name) => isFile(join(dir, name, 'index.ts'))).sort();
}

/** Whether a `paths` entry is in the package's name space: `hermes-extensions` or `hermes-extensions/…`. */
export function isShippedSpec(spec: string): boolean {
  return spec === SHIPPED_PACKAGE || spec.startsWith(`${SHIPPED_PACKAGE}/`);
}

/**
 * The folder and entry of the shipped extension a spec names, when it names one. The folder is
 * what `list` shows; the entry, when the framework runs from its build (`dist/`, the command
 * line's bundle), is the same build's compiled copy — loaded natively, with no transpiling on a
 * cold start — and from the sources (the tests, a checkout not built) the sources. Inside the
 * command line's bundle, `compiled` is that copy as the bundle holds it (compiled-in.ts).
 */
export function shippedExtension(
  spec: string,
):
  | { location: string; entry: string; compiled?: () => Promise<Record<string, unknown>> }
  | undefined {
  const name = spec.slice(SHIPPED_PACKAGE.length + 1);
  if (!shippedNames().includes(name)) return undefined;
  const location = join(shippedExtensionsDir(), name);
  const compiled = join(PACKAGE_ROOT, 'dist', 'shipped', name, 'index.js');
  const builtIn = Object.hasOwn(compiledIn, name) ? compiledIn[name] : undefined;
  return {
    location,
    entry: RUNS_FROM_BUILD && isFile(compiled) ? compiled : join(location, 'index.ts'),
    ...(builtIn ? { compiled: builtIn } : {}),
  };
}

/** Whether this module is compiled: not `src/extensions/shipped.ts` itself. */
const RUNS_FROM_BUILD = !/[\\/]src[\\/]extensions[\\/]shipped\.ts$/.test(
  fileURLToPath(import.meta.url),
);
