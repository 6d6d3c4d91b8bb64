import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../fs/digest.js';
import { compareRecords, type FileRecord } from './records.js';
import { COPY_MAX_BYTES, isText, readTrustedCopy } from './trusted-copies.js';

/** A file that differs from what was trusted, with what a review can show of it. */
export interface FileChange {
  path: string;
  kind: 'added' | 'changed' | 'removed';
  /** The unified diff (headers and hunks), its first `MAX_DIFF_LINES` lines. */
  diff?: string[];
  /** How many lines of the diff were left out. */
  more?: number;
  /** Why no diff is shown, for an added or changed file without one. */
  noDiff?: string;
}

/** Per file: a diff longer than this is cut, saying how much was left out. */
export const MAX_DIFF_LINES = 200;

/**
 * What differs between the files `trusted` (the project's trust record) and the files `now` (a
 * review's, read from `root` with these digests), sorted by path within each kind: changed, then
 * added, then removed. Small text files come with a unified diff against the copy kept when they
 * were trusted (trusted-copies.ts); an added one against nothing. Each file's bytes are checked
 * against the digest in `now`, so the diff shows exactly what trusting records; a file that
 * changed since it was reviewed throws.
 */
export async function changesSinceTrust(
  home: string,
  root: string,
  trusted: readonly FileRecord[],
  now: readonly FileRecord[],
): Promise<FileChange[]> {
  const { createTwoFilesPatch } = await import('diff');
  const realRoot = realpathSync(root);
  const before = new Map(trusted.map((r) => [r.path, r]));
  const after = new Map(now.map((r) => [r.path, r]));
  const changes = compareRecords(trusted, now);
  const shown = (path: string, kind: 'added' | 'changed'): FileChange => {
    const record = after.get(path) as FileRecord;
    const old = kind === 'changed' ? before.get(path) : undefined;
    const current = textOf(realRoot, record);
    if (typeof current !== 'string') return { path, kind, noDiff: current.why };
    let previous = '';
    if (old !== undefined) {
      const copy = old.size <= COPY_MAX_BYTES ? readTrustedCopy(home, old.sha256) : undefined;
      if (copy === undefined) return { path, kind, noDiff: noCopy(old) };
      previous = copy.toString('utf8');
    }
    const patch = createTwoFilesPatch(
      old === undefined ? '/dev/null' : `a/${path}`,
      `b/${path}`,
      previous,
      current,
      undefined,
      undefined,
      { context: 3 },
    );
    // The first line is a rule of '=' and the last one empty: neither says anything.
    const lines = patch.split('\n').slice(1);
    if (lines.at(-1) === '') lines.pop();
    const more = Math.max(0, lines.length - MAX_DIFF_LINES);
    return { path, kind, diff: lines.slice(0, MAX_DIFF_LINES), ...(more > 0 ? { more } : {}) };
  };
  return [
    ...changes.changed.map((path) => shown(path, 'changed')),
    ...changes.added.map((path) => shown(path, 'added')),
    ...changes.removed.map((path): FileChange => ({ path, kind: 'removed' })),
  ];
}

/** The file's text as reviewed, or why it has no diff. */
function textOf(realRoot: string, record: FileRecord): string | { why: string } {
  if (record.size > COPY_MAX_BYTES) return { why: `${sizeOf(record.size)}: no diff` };
  let bytes: Buffer | undefined;
  try {
    bytes = readFileSync(join(realRoot, record.path));
  } catch {
    // gone since it was reviewed: changed like any other file
  }
  if (bytes === undefined || sha256(bytes) !== record.sha256) {
    throw new Error(
      `${record.path} changed while it was being reviewed; run the trust command again`,
    );
  }
  if (!isText(bytes)) return { why: 'binary: no diff' };
  return bytes.toString('utf8');
}

function noCopy(old: FileRecord): string {
  if (old.size > COPY_MAX_BYTES) return `the trusted version was ${sizeOf(old.size)}: no diff`;
  return 'no copy of the trusted version was kept (it was binary, or trusted before copies were kept): no diff';
}

function sizeOf(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB, more than ${COPY_MAX_BYTES / 1024} KiB`;
}
