// Module resolution hooks for extensions and config files loaded with native `import()`, so they
// can import the framework and zod without installing anything. Registered once per process by
// src/extensions/loading/import-module.ts; `data` maps specifiers to file URLs:
// - `always`: the framework itself, so every extension shares the running instance;
// - `fallback`: packages used only when the importing code has no copy of its own (zod), so a
//   host or an extension that pins its own version keeps it.
let always = {};
let fallback = {};

export function initialize(data) {
  always = data?.always ?? {};
  fallback = data?.fallback ?? {};
}

export async function resolve(specifier, context, nextResolve) {
  const forced = always[specifier];
  if (forced !== undefined) return { url: forced, shortCircuit: true };
  const backup = fallback[specifier];
  if (backup === undefined) return nextResolve(specifier, context);
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return { url: backup, shortCircuit: true };
  }
}
