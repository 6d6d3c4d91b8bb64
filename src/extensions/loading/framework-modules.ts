import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

/**
 * The compiled module next to this one, or, when the sources run directly (tests), the build in
 * `dist/`: native `import()` on Node 20 cannot load TypeScript.
 */
function compiledUrl(module: string): string {
  const sibling = new URL(`../../${module}.js`, import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling.href;
  return pathToFileURL(fileURLToPath(new URL(`../../../dist/${module}.js`, import.meta.url))).href;
}
