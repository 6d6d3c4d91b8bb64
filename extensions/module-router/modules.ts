import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isWithin, type PathBase, resolveProjectPath } from 'hermes-extensions/policy';

/**
 * The modules the routing file names: every word of it that is a folder of the project
 * (`src/auth`, `./packages/core/`, in backquotes or not), less the folders that hold another one
 * named there (`src` when `src/auth` is named too: a folder of modules is not one module).
 */
export function moduleFolders(root: string, routingText: string): string[] {
  const folders = new Set<string>();
  for (const match of routingText.matchAll(/[\w.@-]+(?:\/[\w.@-]+)*\/?/g)) {
    const name = match[0].replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    if (name === '' || name.split('/').some((part) => part === '..' || part === '.')) continue;
    const path = resolveProjectPath(root, name);
    if (!path.inProject || !isWithin(path, [name]) || !isFolder(join(root, name))) continue;
    folders.add(name);
  }
  const named = [...folders];
  return named.filter((folder) => !named.some((other) => other.startsWith(`${folder}/`)));
}

/**
 * Places searches in modules: a folder lies in a module when it is that module's folder or below
 * it, both by name and where it really is; a search is placed when all it covers lies in one. The routing file is read when a search is
 * placed, so an edit to it counts at once.
 */
export function modulePlacer(root: string, routingFile: string) {
  const modules = () => {
    try {
      return moduleFolders(root, readFileSync(join(root, routingFile), 'utf8'));
    } catch {
      return [];
    }
  };
  /**
   * Whether the folders all lie in one module (the same one). `at` is the folder relative names
   * start from (default the root), null when it is not known; a folder undefined is only known
   * when the command runs.
   */
  return (folders: ReadonlyArray<string | undefined>, at?: PathBase | null): boolean => {
    if (folders.length === 0) return true;
    const known = modules();
    const holders = folders.map((folder) => {
      if (folder === undefined || (at === null && !isAbsolute(folder))) return undefined;
      const path = resolveProjectPath(root, folder, at ?? undefined);
      return known.find((module) => isWithin(path, [module]));
    });
    const first = holders[0];
    return first !== undefined && holders.every((holder) => holder === first);
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
