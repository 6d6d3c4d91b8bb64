import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * What extension code may import without installing it: the framework's public entry points and
 * zod, as the running process has them. Loaded lazily (and only by the loader), so importing
 * the framework does not import itself.
 */
export async function frameworkNamespaces(): Promise<Record<string, unknown>> {
  const [framework, testing, zod] = await Promise.all([
    import('../../index.js'),
    import('../../testing/index.js'),
    import('zod'),
  ]);
  return {
    'hermes-extensions': framework,
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
  return {
    always: {
      'hermes-extensions': compiledUrl('index'),
      'hermes-extensions/testing': compiledUrl('testing/index'),
    },
    fallback: { zod, 'zod/v4': zod },
  };
}

/** The compiled module in `dist/`: native `import()` on Node 20 cannot load the TypeScript sources. */
function compiledUrl(module: string): string {
  return pathToFileURL(join(PACKAGE_ROOT, 'dist', `${module}.js`)).href;
}
