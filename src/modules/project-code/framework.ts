/**
 * What project code imports from the running framework, never from disk: every entry point of
 * `hermes-extensions` (`/policy`, `/testing`, `/ai-sdk`, and any added later), zod with its
 * subpaths, and ts-pattern. A copy of these installed in the project (the README's install puts
 * `hermes-extensions` in its `node_modules`) is neither bundled nor read: the framework is not
 * project code, so updating it does not change what the project's trust covers.
 */
export function isFrameworkSpecifier(specifier: string): boolean {
  return FRAMEWORK.test(specifier);
}

const FRAMEWORK = /^(?:hermes-extensions|zod|ts-pattern)(?:\/.*)?$/;

/**
 * The framework's modules extension code may import, each by a literal `import()` so the bundled
 * command line carries them (a computed one would load a second copy of the framework from
 * `dist/`). `hermes-extensions/ai-sdk` is a host adapter that needs the `ai` package: not for
 * extensions. Another subpath of the family is refused when the project is bundled.
 */
const PROVIDED: Record<string, () => Promise<Record<string, unknown>>> = {
  'hermes-extensions': () => import('hermes-extensions'),
  'hermes-extensions/policy': () => import('hermes-extensions/policy'),
  'hermes-extensions/testing': () => import('hermes-extensions/testing'),
  zod: () => import('zod'),
  'zod/v4': () => import('zod/v4'),
  'ts-pattern': () => import('ts-pattern'),
};

export const PROVIDED_SPECIFIERS = Object.keys(PROVIDED);

/** Where the bundle's modules and its restricted import find the framework's namespaces. */
export const REGISTRY = Symbol.for('hermes-extensions.project-code');

export interface ProjectCodeRegistry {
  /** The running framework's namespace for `specifier` (loaded by `frameworkNamespace` first). */
  framework(specifier: string): Record<string, unknown>;
  /** The `require` a bundle's CommonJS modules get: built-in modules and the framework only. */
  require(entry: string): ((specifier: string) => unknown) & { resolve(specifier: string): string };
  /** The `import()` a bundle's computed imports call: built-in modules and the framework only. */
  importer(entry: string): (specifier: string) => Promise<unknown>;
  /** `import.meta.resolve` in a bundle: built-in modules only. */
  resolve(specifier: string): string;
}

const loaded = new Map<string, Record<string, unknown>>();

/**
 * The framework's namespace for `specifier`, imported by its package name from this file, so it
 * is the copy the host runs (inside the bundled command line, the bundle's own; `src/` under the
 * test and type-check aliases).
 */
export async function frameworkNamespace(specifier: string): Promise<Record<string, unknown>> {
  let namespace = loaded.get(specifier);
  if (namespace === undefined) {
    const load = PROVIDED[specifier];
    if (load === undefined) {
      throw new Error(
        `"${specifier}" is not one of the framework's modules extension code can import (${PROVIDED_SPECIFIERS.join(', ')})`,
      );
    }
    namespace = await load();
    loaded.set(specifier, namespace);
  }
  return namespace;
}

/** The namespace already loaded for `specifier`; a bundle only runs once its own are loaded. */
export function loadedNamespace(specifier: string): Record<string, unknown> {
  const namespace = loaded.get(specifier);
  if (namespace === undefined) throw new Error(`${specifier} was not loaded for this bundle`);
  return namespace;
}
