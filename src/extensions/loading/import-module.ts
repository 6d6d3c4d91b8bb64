import { statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Jiti } from 'jiti';
import { frameworkNamespaces, frameworkUrls } from './framework-modules.js';

const TYPESCRIPT = /\.[cm]?ts$/;

let jiti: Promise<Jiti> | undefined;
let hooksRegistered = false;

/**
 * Loads an extension or config module and returns its namespace. TypeScript goes through jiti
 * (with its disk cache, so a warm start skips the transpiler; enums and other non-erasable syntax
 * work on Node 20); JavaScript through native `import()`. Both see `hermes-extensions` and `zod`
 * as the running framework's own copies.
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(file)) {
    jiti ??= createLoader();
    return (await (await jiti).import(file)) as Record<string, unknown>;
  }
  registerResolveHooks();
  // The modification time in the URL makes an edited file load anew in the same process.
  const url = `${pathToFileURL(file).href}?mtime=${statSync(file).mtimeMs}`;
  return (await nativeImport(url)) as Record<string, unknown>;
}

async function createLoader(): Promise<Jiti> {
  const [{ createJiti }, virtualModules] = await Promise.all([
    import('jiti'),
    frameworkNamespaces(),
  ]);
  return createJiti(import.meta.url, {
    fsCache: true,
    // Every load reads the files again: an edited extension is picked up by the next runtime.
    moduleCache: false,
    virtualModules,
  });
}

function registerResolveHooks(): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  register(new URL('../../../loader/resolve-hooks.mjs', import.meta.url), {
    data: frameworkUrls(),
  });
}

/** See loader/native-import.cjs: `require` of it is Node's own, whoever transformed this file. */
const nativeImport = createRequire(import.meta.url)('../../../loader/native-import.cjs') as (
  url: string,
) => Promise<unknown>;
