import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the hermes-extensions package, found by walking up from this module: the same
 * answer from `src/` (tests), `dist/` and a bundle, which each sit at a different depth.
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readName(manifest) === 'hermes-extensions') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`hermes-extensions: no package.json above ${start}`);
    dir = parent;
  }
}

function readName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

export function packageVersion(): string {
  return (
    JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
  ).version;
}
