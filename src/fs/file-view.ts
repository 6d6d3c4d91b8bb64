import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';

/**
 * The files that finding a project's config and discovering extensions look at: the disk, by
 * default. A project that changed since it was trusted is looked at as it was trusted instead
 * (src/trust/held-view.ts): an extension added since is not found, and one removed since still is.
 */
export interface FileView {
  /** A folder, or a link to one. */
  isDir(path: string): boolean;
  /** A file, or a link to one. */
  isFile(path: string): boolean;
  /** The names in a folder. */
  list(dir: string): string[];
  /** A file's text; throws when it cannot be read. */
  read(path: string): string;
  /** Its real path; throws when there is none. */
  real(path: string): string;
}

export const DISK: FileView = {
  isDir: (path) => statOf(path)?.isDirectory() ?? false,
  isFile: (path) => statOf(path)?.isFile() ?? false,
  list: (dir) => readdirSync(dir),
  read: (path) => readFileSync(path, 'utf8'),
  real: (path) => realpathSync(path),
};

function statOf(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
