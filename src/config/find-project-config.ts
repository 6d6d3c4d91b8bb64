import { dirname, join, relative } from 'node:path';
import { DISK, type FileView } from '../fs/file-view.js';

/** Where project config may live, in the order one folder is searched (nearest folder first). */
export const PROJECT_CONFIG_PLACES = [
  'package.json',
  '.hermesrc',
  '.hermesrc.json',
  '.hermesrc.yaml',
  '.hermesrc.yml',
  'hermes.config.ts',
  'hermes.config.mts',
  'hermes.config.js',
  'hermes.config.mjs',
  '.hermes/config.yaml',
  '.hermes/config.yml',
] as const;

const CODE_CONFIG = /\.(?:[cm]?ts|[cm]?js)$/;

export interface ProjectConfigFile {
  file: string;
  /** Code runs when it is loaded, so it needs the project to be trusted even to be read. */
  isCode: boolean;
}

/**
 * The project's config file, found without loading anything: from the working directory up to
 * the project root, the first folder holding one of PROJECT_CONFIG_PLACES wins (a
 * `package.json` only when it has a `hermes` key).
 */
export function findProjectConfig(
  cwd: string,
  projectRoot: string,
  view: FileView = DISK,
): ProjectConfigFile | undefined {
  let dir = cwd;
  for (;;) {
    for (const place of PROJECT_CONFIG_PLACES) {
      const file = join(dir, place);
      if (!view.isFile(file)) continue;
      if (place === 'package.json' && !hasHermesKey(file, view)) continue;
      return { file, isCode: CODE_CONFIG.test(place) };
    }
    const parent = dirname(dir);
    if (dir === projectRoot || parent === dir || relative(projectRoot, dir).startsWith('..')) {
      return undefined;
    }
    dir = parent;
  }
}

function hasHermesKey(file: string, view: FileView): boolean {
  try {
    const manifest = JSON.parse(view.read(file)) as Record<string, unknown>;
    return manifest !== null && typeof manifest === 'object' && 'hermes' in manifest;
  } catch {
    return false;
  }
}
