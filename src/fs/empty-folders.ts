import { rmdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * Removes `folder` and then each folder above it while it is empty, stopping below `stop` (which
 * stays, as does any folder outside it): what an install made to hold one file (`.claude/`,
 * `.opencode/plugins/`) goes with that file, while a folder holding anything else stays with it.
 * `rmdir` removes only an empty folder, so nothing of anyone else's can go. Returns the folders it
 * removed.
 */
export function removeEmptyFolders(folder: string, stop: string): string[] {
  const removed: string[] = [];
  let dir = resolve(folder);
  const top = resolve(stop);
  for (;;) {
    const rel = relative(top, dir);
    if (rel === '' || rel.startsWith('..') || resolve(top, rel) !== dir) return removed;
    try {
      rmdirSync(dir);
      removed.push(dir);
    } catch (error) {
      // Gone already (a format removes its own folder): its parent may be empty now.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return removed;
    }
    dir = dirname(dir);
  }
}
