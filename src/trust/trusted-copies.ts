import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../fs/digest.js';
import { replaceFile } from '../fs/locked-file.js';
import type { FileRecord } from './records.js';
import { readTrust } from './store.js';

/**
 * The largest file a copy is kept of (and `hermes extensions trust` shows a diff of): hook code
 * and config are a few kilobytes; a bigger file is a bundle or data, which a diff does not review.
 */
export const COPY_MAX_BYTES = 64 * 1024;

const FOLDER = 'trusted-copies';
const DIGEST = /^[0-9a-f]{64}$/;
/** A temporary file this old was left by a write that never finished. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Copies of the small text files the user trusted, named by their SHA-256, so that the next
 * `hermes extensions trust` can show what changed since, line by line: the trust record
 * (store.ts) keeps only digests. Project code may hold secrets, so the folder is the user's alone
 * (0700, files 0600).
 */
export function copiesFolder(home: string): string {
  return join(home, FOLDER);
}

/** Text: valid UTF-8 with no NUL byte. Anything else is shown as binary, without a diff. */
export function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The bytes trusted under `digest`, or undefined when no copy is kept (a large or binary file,
 * one trusted before copies were kept, a copy pruned or damaged). A copy is used only when its
 * content still has its name's digest, so a diff is never made against other bytes.
 */
export function readTrustedCopy(home: string, digest: string): Buffer | undefined {
  if (!DIGEST.test(digest)) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(copiesFolder(home), digest));
  } catch {
    return undefined;
  }
  return sha256(bytes) === digest ? bytes : undefined;
}

/**
 * Keeps a copy of every small text file of `files` (a trust record's, relative to the project
 * `root`) that has none yet, from the file as it is on disk, and only while it still has the
 * digest the record holds; then prunes the copies no record refers to. Called once a trust record
 * is written (the trust command, and `writeTrustedEdit`). Returns how many copies were written.
 */
export function keepTrustedCopies(
  home: string,
  root: string,
  files: readonly FileRecord[],
): number {
  const folder = ownFolder(home);
  const realRoot = realpathSync(root);
  let written = 0;
  for (const file of files) {
    if (file.size > COPY_MAX_BYTES || readTrustedCopy(home, file.sha256) !== undefined) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(realRoot, file.path));
    } catch {
      continue; // gone since it was trusted: nothing to keep
    }
    if (sha256(bytes) !== file.sha256 || !isText(bytes)) continue;
    writeCopy(folder, file.sha256, bytes);
    written++;
  }
  pruneTrustedCopies(home);
  return written;
}

/**
 * Removes every copy that no trust record refers to (a file changed and trusted again, a project
 * revoked), and temporary files a write left behind. A copy that a trust running at the same time
 * writes just before its record may be removed: its next diff then says that no copy was kept,
 * never shows a wrong one. Returns how many copies were removed.
 */
export function pruneTrustedCopies(home: string): number {
  const folder = copiesFolder(home);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  const referenced = new Set<string>();
  for (const record of Object.values(readTrust(home))) {
    if (!('outdated' in record)) for (const file of record.files) referenced.add(file.sha256);
  }
  let removed = 0;
  for (const name of names) {
    const path = join(folder, name);
    if (DIGEST.test(name)) {
      if (referenced.has(name)) continue;
      rmSync(path, { force: true });
      removed++;
    } else if (name.endsWith('.tmp') && isStale(path)) {
      rmSync(path, { force: true });
    }
  }
  return removed;
}

/**
 * The copies folder, made 0700 (and set so if it was made wider). A link or a file in its place is
 * refused: copies are never written through a link.
 */
function ownFolder(home: string): string {
  const folder = copiesFolder(home);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stats = lstatSync(folder);
  if (!stats.isDirectory()) throw new Error(`${folder} is not a folder`);
  if ((stats.mode & 0o777) !== 0o700) chmodSync(folder, 0o700);
  return folder;
}

/** Written whole to a temporary file and renamed, so a reader never sees half a copy. */
function writeCopy(folder: string, digest: string, bytes: Buffer): void {
  replaceFile(join(folder, digest), bytes);
}

function isStale(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > STALE_MS;
  } catch {
    return false;
  }
}
