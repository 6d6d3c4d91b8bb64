import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { transpileCacheDir } from '../../config/locations.js';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * The worker's entry as built: bundled into one file (scripts/bundle-cli.mjs), which a new thread
 * loads faster than the ~150 modules it is made of, and which loader/daemon-worker.cjs compiles
 * from V8's code cache of it; else as compiled.
 */
export function workerEntry(): string {
  return existsSync(join(PACKAGE_ROOT, 'dist', 'daemon-worker.bundle.cjs'))
    ? join(PACKAGE_ROOT, 'loader', 'daemon-worker.cjs')
    : join(PACKAGE_ROOT, 'dist/host/daemon/runtime-worker.js');
}

/**
 * Folders whose reads say nothing about a runtime: the framework's own code and the packages it
 * depends on (fixed for the daemon's version, which names its socket), and the transpile cache.
 */
export function frameworkFolders(home: string): string[] {
  const folders = [
    transpileCacheDir(home),
    join(PACKAGE_ROOT, 'dist'),
    join(PACKAGE_ROOT, 'loader'),
    join(PACKAGE_ROOT, 'node_modules'),
  ];
  let dependencies: string[] = [];
  try {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));
    dependencies = Object.keys((manifest.dependencies as object | undefined) ?? {});
  } catch {}
  for (const name of dependencies) {
    // Where Node finds it from the framework: its own node_modules, or one above (hoisted).
    for (let dir = PACKAGE_ROOT; ; dir = dirname(dir)) {
      const folder = join(dir, 'node_modules', name);
      if (existsSync(join(folder, 'package.json'))) {
        folders.push(folder);
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  // And where they really are (a node_modules that is a link: Node reads by the real path).
  return [...new Set([...folders, ...folders.map(realPath)])];
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
