import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

/**
 * Node's own `import()` (loader/native-import.cjs: `require` of it is Node's own, whoever
 * transformed this file): for a specifier known only when it runs (a file URL, an optional peer).
 * A test runner or bundler that transforms the framework's sources would route their `import()`
 * through its own module graph, and the daemon's runtime bundle is a script, where `import()`
 * cannot run at all (scripts/bundle-cli.mjs).
 */
export const nativeImport = createRequire(import.meta.url)(
  join(PACKAGE_ROOT, 'loader', 'native-import.cjs'),
) as (url: string) => Promise<unknown>;
