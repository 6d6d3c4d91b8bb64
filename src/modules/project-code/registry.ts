import { createRequire, isBuiltin } from 'node:module';
import {
  frameworkNamespace,
  isFrameworkSpecifier,
  loadedNamespace,
  type ProjectCodeRegistry,
  REGISTRY,
} from './framework.js';

/**
 * Puts the registry the bundles read (bundle-format.ts `banner`) on `globalThis`, once per
 * process. A bundle is evaluated from a `data:` URL, so it has no path to resolve from: what it
 * may load besides itself is only what this registry hands it.
 */
export function installRegistry(): void {
  const global = globalThis as { [REGISTRY]?: ProjectCodeRegistry };
  global[REGISTRY] ??= {
    framework: loadedNamespace,
    require: restrictedRequire,
    importer: restrictedImporter,
    resolve: (specifier) => {
      if (isBuiltin(specifier))
        return specifier.startsWith('node:') ? specifier : `node:${specifier}`;
      throw refusal('resolves', specifier, 'project code');
    },
  };
}

const nodeRequire = createRequire(import.meta.url);

function restrictedRequire(entry: string) {
  const require = (specifier: string): unknown => {
    if (isBuiltin(specifier)) return nodeRequire(specifier);
    if (isFrameworkSpecifier(specifier)) return loadedNamespace(specifier);
    throw refusal('requires', specifier, entry);
  };
  require.resolve = (specifier: string): string => {
    if (isBuiltin(specifier)) return specifier;
    throw refusal('resolves', specifier, entry);
  };
  return require;
}

function restrictedImporter(entry: string) {
  return async (specifier: unknown): Promise<unknown> => {
    const name = String(specifier);
    if (isBuiltin(name)) return import(name.startsWith('node:') ? name : `node:${name}`);
    if (isFrameworkSpecifier(name)) return frameworkNamespace(name);
    throw refusal('imports', name, entry);
  };
}

/**
 * A load the bundle cannot make: everything the project's code may run was read, checked and
 * bundled when the project was trusted, so a name computed at run time can reach only Node's
 * built-in modules and the framework.
 */
function refusal(verb: string, specifier: string, entry: string): Error {
  const error = new Error(
    `${entry} ${verb} "${specifier}" by a name computed when it runs; project code loads only what was bundled from the files trusted with the project (import a file by a literal name, then trust the project again)`,
  );
  (error as { code?: string }).code = 'ERR_HERMES_NOT_TRUSTED';
  return error;
}
