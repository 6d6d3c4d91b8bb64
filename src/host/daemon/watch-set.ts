import { lstatSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';

/** Past this many files and folders, a runtime is not kept: it is loaded per event, as without the daemon. */
const MAX_ENTRIES = 20_000;

/**
 * The files and folders a runtime was built from, each with a stamp taken before it was read
 * (inode, size, modification and change times; or "missing"). A folder is walked: its stamp
 * changes when an entry is added, removed or renamed in it, and every file below is stamped, so
 * an edit anywhere in an extension's folder, or a new extension, is seen. Inside `node_modules`
 * only the packages' folders and manifests are stamped (an install replaces them): a package's
 * own files are not walked. `.git` is skipped.
 */
export class WatchSet {
  readonly #stamps = new Map<string, string>();
  #tooMany = false;

  /** Stamps `path` (following a link) and, for a folder, everything below it. */
  add(path: string): void {
    if (this.#stamps.has(path) || this.#tooMany) return;
    const stats = statOf(path);
    this.#record(path, stats);
    if (stats?.isDirectory()) this.#walk(path, false);
  }

  /** Whether anything stamped differs now; always true past MAX_ENTRIES. */
  changed(): boolean {
    if (this.#tooMany) return true;
    for (const [path, stamp] of this.#stamps) if (stampOf(statOf(path)) !== stamp) return true;
    return false;
  }

  get size(): number {
    return this.#stamps.size;
  }

  #record(path: string, stats: Stats | undefined): void {
    this.#stamps.set(path, stampOf(stats));
    if (this.#stamps.size > MAX_ENTRIES) this.#tooMany = true;
  }

  #walk(dir: string, packagesOnly: boolean): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (this.#tooMany) return;
      if (name === '.git') continue;
      const path = join(dir, name);
      if (this.#stamps.has(path)) continue;
      const stats = statOf(path);
      if (packagesOnly) {
        // node_modules/<package> or node_modules/@scope/<package>: the folder and its manifest.
        this.#record(path, stats);
        if (!stats?.isDirectory()) continue;
        if (name.startsWith('@')) this.#walk(path, true);
        else this.add(join(path, 'package.json'));
        continue;
      }
      this.#record(path, stats);
      if (stats?.isDirectory()) this.#walk(path, name === 'node_modules');
    }
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    try {
      // A dangling link is an entry too: it changes when it is fixed.
      return lstatSync(path);
    } catch {
      return undefined;
    }
  }
}

function stampOf(stats: Stats | undefined): string {
  if (stats === undefined) return 'missing';
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
