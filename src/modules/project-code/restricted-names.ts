/**
 * The names a bundle's prologue (bundle-format.ts `banner`) declares and its rewritten modules
 * (rewrite.ts) call: the bundle's own `import()` and `import.meta.resolve`, limited to Node's
 * built-in modules and the framework.
 */
export const RESTRICTED_IMPORT = '__hermes_import';
export const RESTRICTED_RESOLVE = '__hermes_resolve';
