import { statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Jiti } from 'jiti';
import { PACKAGE_ROOT } from '../../package-root.js';
import { frameworkNamespaces, frameworkUrls } from './framework-modules.js';

const TYPESCRIPT = /\.[cm]?ts$/;

/** Loads extension and config modules; one per transpile cache folder, kept for the process. */
export interface ModuleLoader {
  /**
   * The module's namespace. TypeScript goes through jiti, whose disk cache lets a warm start
   * skip the transpiler (enums and other non-erasable syntax work on Node 20); JavaScript through
   * native `import()`. Both see `hermes-extensions` and `zod` as the running framework's copies.
   */
  import(file: string): Promise<Record<string, unknown>>;
}

const loaders = new Map<string, ModuleLoader>();
let hooksRegistered = false;

/**
 * The loader whose jiti cache lives in `cacheDir` (`$HERMES_HOME/cache/jiti`): a folder the
 * framework owns, not the shared temp folder that cleaners empty and other users may own.
 */
export function moduleLoader(cacheDir: string): ModuleLoader {
  let loader = loaders.get(cacheDir);
  if (loader === undefined) {
    let jiti: Promise<Jiti> | undefined;
    loader = {
      async import(file) {
        if (TYPESCRIPT.test(file)) {
          jiti ??= createJitiLoader(cacheDir);
          return (await (await jiti).import(file)) as Record<string, unknown>;
        }
        registerResolveHooks();
        // The modification time in the URL makes an edited file load anew in the same process.
        const url = `${pathToFileURL(file).href}?mtime=${statSync(file).mtimeMs}`;
        return (await nativeImport(url)) as Record<string, unknown>;
      },
    };
    loaders.set(cacheDir, loader);
  }
  return loader;
}

async function createJitiLoader(cacheDir: string): Promise<Jiti> {
  // `require`, not `import()`: importing jiti's CommonJS build from ESM makes Node scan all of it
  // for export names first (cjs-module-lexer), about 19 ms of a warm start.
  const { createJiti } = createRequire(import.meta.url)('jiti') as typeof import('jiti');
  const virtualModules = await frameworkNamespaces();
  return createJiti(import.meta.url, {
    fsCache: cacheDir,
    // Every load reads the files again: an edited extension is picked up by the next runtime.
    moduleCache: false,
    virtualModules,
  });
}

function registerResolveHooks(): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  register(pathToFileURL(join(PACKAGE_ROOT, 'loader', 'resolve-hooks.mjs')), {
    data: frameworkUrls(),
  });
}

/** See loader/native-import.cjs: `require` of it is Node's own, whoever transformed this file. */
const nativeImport = createRequire(import.meta.url)(
  join(PACKAGE_ROOT, 'loader', 'native-import.cjs'),
) as (url: string) => Promise<unknown>;
