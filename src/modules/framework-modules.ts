/** The framework's public entry points. */
const ENTRIES = ['hermes-extensions', 'hermes-extensions/policy', 'hermes-extensions/testing'];

/**
 * What extension code may import without installing it: the framework's public entry points and
 * zod, as the running process has them. Loaded lazily (and only by the loader), once. The
 * framework is imported by its own package name (package.json `exports`), not by a relative
 * path, so this module does not import the entry that imports it: the name resolves to the same
 * module the host imported (inside the bundled command line, the bundle's own copy; `src/` under
 * the test and type-check aliases).
 */
export function frameworkNamespaces(): Promise<Record<string, Record<string, unknown>>> {
  namespaces ??= Promise.all([
    import('hermes-extensions'),
    import('hermes-extensions/policy'),
    import('hermes-extensions/testing'),
    import('zod'),
  ]).then(([framework, policy, testing, zod]) => ({
    'hermes-extensions': framework,
    'hermes-extensions/policy': policy,
    'hermes-extensions/testing': testing,
    zod,
    'zod/v4': zod,
  }));
  return namespaces;
}

let namespaces: Promise<Record<string, Record<string, unknown>>> | undefined;

/** Where the modules of `frameworkUrls` find the namespaces they stand for. */
const REGISTRY = Symbol.for('hermes-extensions.framework-modules');
let registered = 0;

/**
 * The same modules for native `import()`, which cannot be handed objects: per specifier, a
 * `data:` URL of a module that re-exports the running process's namespace (kept on `globalThis`
 * under a registered symbol). So a JavaScript extension shares the host's framework and zod
 * instead of loading a copy of each from `dist/` and `node_modules/`: some 150 more modules to
 * read and compile on every start of the bundled command line.
 */
export async function frameworkUrls(): Promise<{
  always: Record<string, string>;
  fallback: Record<string, string>;
}> {
  const modules = await frameworkNamespaces();
  const global = globalThis as { [REGISTRY]?: Record<string, unknown> };
  // One slot per call: two copies of the framework in a process each keep their own.
  // (Each copy counts from 1, hence the random part.)
  const slot = `${++registered}-${Math.random().toString(36).slice(2)}`;
  global[REGISTRY] ??= {};
  global[REGISTRY][slot] = modules;
  const url = (specifier: string) =>
    `data:text/javascript,${encodeURIComponent(reexport(slot, specifier, modules[specifier] ?? {}))}`;
  return {
    always: Object.fromEntries(ENTRIES.map((specifier) => [specifier, url(specifier)])),
    fallback: { zod: url('zod'), 'zod/v4': url('zod/v4') },
  };
}

/** A module exporting each of `namespace`'s names, read from the registry's `slot`. */
function reexport(slot: string, specifier: string, namespace: Record<string, unknown>): string {
  const names = Object.keys(namespace);
  const source = `globalThis[Symbol.for(${JSON.stringify(REGISTRY.description)})][${JSON.stringify(slot)}][${JSON.stringify(specifier)}]`;
  return [
    `const m = ${source};`,
    ...names.map((name, i) => `const v${i} = m[${JSON.stringify(name)}];`),
    `export { ${names.map((name, i) => `v${i} as ${JSON.stringify(name)}`).join(', ')} };`,
  ].join('\n');
}
