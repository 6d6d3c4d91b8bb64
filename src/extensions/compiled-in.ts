/**
 * The shipped extensions compiled into the running program, by name: empty here, and filled in
 * the command line's and the hook daemon worker's bundles (scripts/bundle-cli.mjs puts a module
 * that imports each one from `dist/shipped/` in place of this one). A shipped extension found
 * there loads with the bundle, sharing its framework and zod as an import of its own name would,
 * without the module loader's resolve hooks: registering those starts a loader thread, about half
 * of the CPU a hook process spent when the config names `hermes-extensions/workflow-guard`
 * (BENCHMARKS.md, Hook call). What runs is the same compiled code `dist/shipped/<name>/` holds.
 */
export const compiledIn: Readonly<Record<string, () => Promise<Record<string, unknown>>>> = {};
