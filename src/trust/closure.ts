import { builtinModules, createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Jiti } from 'jiti';
import { isFile } from '../config/locations.js';
import type { Coverage } from './coverage.js';
import { scanImports } from './imports.js';

/** Files jiti loads as modules (and so may import more); `.json` is read but imports nothing. */
const MODULE = /\.(?:[cm]?[jt]sx?)$/;
/** What extension and config code imports from the running framework, not from disk. */
const PROVIDED = new Set(['hermes-extensions', 'hermes-extensions/testing', 'zod', 'zod/v4']);

let resolver: Jiti | undefined;

/**
 * Adds to `coverage` every file inside the project that the modules in it import, directly or
 * through each other, resolved as jiti resolves them (relative and absolute paths, and packages
 * through `node_modules`), and the `package.json` that jiti reads to tell a `.js` file's module
 * type. Runs no project code. Returns the modules that import a name only known at run time.
 */
export function addImportClosure(coverage: Coverage): string[] {
  resolver ??= (createRequire(import.meta.url)('jiti') as typeof import('jiti')).createJiti(
    import.meta.url,
    { fsCache: false, moduleCache: false, tryNative: false },
  );
  const computed: string[] = [];
  const done = new Set<string>();
  const pending = coverage.list().map((r) => r.path);
  while (pending.length > 0 && coverage.problems.length === 0) {
    const rel = pending.pop() as string;
    if (done.has(rel) || !MODULE.test(rel) || rel.endsWith('.d.ts')) continue;
    done.add(rel);
    const file = join(coverage.realRoot, rel);
    let imports: ReturnType<typeof scanImports>;
    try {
      imports = scanImports(file);
    } catch (error) {
      coverage.problems.push(`${rel} cannot be parsed: ${(error as Error).message}`);
      continue;
    }
    if (imports.computed) computed.push(rel);
    if (extname(rel) === '.js') addTypeManifest(coverage, file);
    for (const specifier of imports.specifiers) {
      for (const target of resolveAll(resolver, specifier, file)) {
        const inside = coverage.relativeOf(target);
        if (inside === undefined) continue;
        coverage.add(target);
        addPackageManifest(coverage, target);
        pending.push(inside);
      }
    }
  }
  return computed;
}

function resolveAll(jiti: Jiti, specifier: string, from: string): string[] {
  if (PROVIDED.has(specifier) || isBuiltin(specifier)) return [];
  const parentURL = pathToFileURL(from);
  const found = new Set<string>();
  // `import` and `require` may pick different files of a package (its exports conditions).
  for (const conditions of [
    ['node', 'import'],
    ['node', 'require'],
  ]) {
    const url = jiti.esmResolve(specifier, { parentURL, conditions, try: true });
    if (url?.startsWith('file:')) found.add(fileURLToPath(url));
    else if (url && !url.includes(':')) found.add(url);
  }
  return [...found];
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier);
}

/** The nearest `package.json` above a `.js` file: its `type` decides how jiti reads the file. */
function addTypeManifest(coverage: Coverage, file: string): void {
  let dir = dirname(file);
  while (coverage.relativeOf(dir) !== undefined) {
    const manifest = join(dir, 'package.json');
    if (isFile(manifest)) {
      coverage.add(manifest);
      return;
    }
    if (dir === coverage.realRoot) return;
    dir = dirname(dir);
  }
}

/** A file in `node_modules/<package>/`: that package's `package.json` chose it (main, exports). */
function addPackageManifest(coverage: Coverage, file: string): void {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  if (match?.[1]) {
    const manifest = join(match[1], 'package.json');
    if (isFile(manifest)) coverage.add(manifest);
  }
}
