import { join } from 'node:path';
import { DISK, type FileView } from '../fs/file-view.js';
import { insideRelative } from '../fs/paths.js';
import type { FileRecord } from './records.js';
import { readTrustedCopy } from './trusted-copies.js';

/**
 * The project as it was trusted: inside the root, the files of the trust record (paths relative
 * to the root's real path) are all there is — a file added since is not there, a file removed or
 * changed since is, with the bytes trusted, read from its copy ($HERMES_HOME/trusted-copies/).
 * Outside the root, the disk, as loading sees it (what the project config names out there is
 * refused anyway). A file the record holds but no copy of which is kept cannot be read: it is
 * added to `missing`.
 */
export function heldView(
  home: string,
  root: string,
  realRoot: string,
  files: readonly FileRecord[],
  missing: string[],
): FileView {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const inside = (path: string) => {
    const rel = insideRelative(root, path) ?? insideRelative(realRoot, path);
    return rel === undefined || rel.startsWith('../') ? undefined : rel;
  };
  const isDir = (rel: string) => rel === '' || files.some((f) => f.path.startsWith(`${rel}/`));
  return {
    isDir: (path) => {
      const rel = inside(path);
      return rel === undefined ? DISK.isDir(path) : isDir(rel);
    },
    isFile: (path) => {
      const rel = inside(path);
      return rel === undefined ? DISK.isFile(path) : byPath.has(rel);
    },
    list: (dir) => {
      const rel = inside(dir);
      if (rel === undefined) return DISK.list(dir);
      const prefix = rel === '' ? '' : `${rel}/`;
      const names = new Set<string>();
      for (const { path } of files) {
        if (path.startsWith(prefix)) names.add(path.slice(prefix.length).split('/')[0] as string);
      }
      return [...names].sort();
    },
    read: (path) => {
      const rel = inside(path);
      if (rel === undefined) return DISK.read(path);
      const trusted = byPath.get(rel);
      // Not part of the trusted state: as a file that is not there.
      if (trusted === undefined) throw new Error(`${rel} was not trusted`);
      const bytes = readTrustedCopy(home, trusted.sha256);
      if (bytes === undefined) {
        // Noted, not only thrown: discovery takes an unreadable manifest for none, and a guard
        // found some other way, or not at all, would be a state nobody trusted.
        const problem = `no copy is kept of ${rel} as it was trusted`;
        if (!missing.includes(problem)) missing.push(problem);
        throw new Error(problem);
      }
      return bytes.toString('utf8');
    },
    real: (path) => {
      const rel = inside(path);
      return rel === undefined ? DISK.real(path) : join(realRoot, rel);
    },
  };
}
