import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { isDir, isFile } from '../config/locations.js';

/** Folders that hold tools' output or installed packages, not the project's hook code. */
const SKIPPED = new Set(['node_modules', '.git', '.cache']);

/**
 * Every file of the project's hook code and config under these paths (files, or folders walked
 * recursively), sorted, so the same code always gives the same list.
 */
export function collectFiles(paths: readonly string[]): string[] {
  const files = new Set<string>();
  const walk = (path: string) => {
    if (isFile(path)) {
      files.add(path);
      return;
    }
    if (!isDir(path)) return;
    for (const item of readdirSync(path, { withFileTypes: true })) {
      if (SKIPPED.has(item.name)) continue;
      walk(join(path, item.name));
    }
  };
  for (const path of paths) walk(path);
  return [...files].sort();
}

/**
 * A SHA-256 over each file's path (relative to the project root) and content. Of a
 * `package.json` only the `hermes` key counts, so a dependency bump does not untrust a project.
 */
export function fingerprintFiles(root: string, files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(fileContent(file)).update('\0');
  }
  return hash.digest('hex');
}

function fileContent(file: string): string | Buffer {
  const content = readFileSync(file);
  if (basename(file) !== 'package.json') return content;
  try {
    return JSON.stringify(
      (JSON.parse(content.toString('utf8')) as { hermes?: unknown }).hermes ?? null,
    );
  } catch {
    return content;
  }
}
