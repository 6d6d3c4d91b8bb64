import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../package-root.js';

/** The framework's public entry points, each with its compiled module in `dist/`. */
const ENTRIES = {
  'hermes-extensions': 'index',
  'hermes-extensions/policy': 'policy/index',
  'hermes-extensions/testing': 'testing/index',
} as const;

/**
 * What extension code may import without installing it: the framework's public entry points and
 * zod, as the running process has them. Loaded lazily (and only by the loader). The framework is
 * imported by its own package name (package.json `exports`), not by a relative path, so this
 * module does not import the entry that imports it: the name resolves to the same `dist/` module
 * the host imported (to `src/` under the test and type-check aliases).
 */
export async function frameworkNamespaces(): Promise<Record<string, unknown>> {
  const [framework, policy, testing, zod] = await Promise.all([
    import('hermes-extensions'),
    import('hermes-extensions/policy'),
    import('hermes-extensions/testing'),
    import('zod'),
  ]);
  return {
    'hermes-extensions': framework,
    'hermes-extensions/policy': policy,
    'hermes-extensions/testing': testing,
    zod,
    'zod/v4': zod,
  };
}

/** The same modules as file URLs, for native `import()` (which cannot be handed objects). */
export function frameworkUrls(): {
  always: Record<string, string>;
  fallback: Record<string, string>;
} {
  const zod = import.meta.resolve('zod');
  const always = Object.fromEntries(
    Object.entries(ENTRIES).map(([specifier, module]) => [specifier, compiledUrl(module)]),
  );
  return { always, fallback: { zod, 'zod/v4': zod } };
}

/** The compiled module in `dist/`: native `import()` on Node 20 cannot load the TypeScript sources. */
function compiledUrl(module: string): string {
  return pathToFileURL(join(PACKAGE_ROOT, 'dist', `${module}.js`)).href;
}
