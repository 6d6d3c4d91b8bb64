import { createHash } from 'node:crypto';
import fs, { type Stats } from 'node:fs';

// Node's own functions, taken before the read recorder (read-recorder.ts) replaces them in its
// thread: a look taken here is not a read to record, and must not record itself.
const { lstatSync, readdirSync, readFileSync, statSync } = fs;

/**
 * How loading a runtime looked at a path, and so what of it has to stay the same for the runtime
 * to be the one a fresh process would load now:
 * - `read`: its bytes (a stamp taken before the read, and the digest of what was read);
 * - `open`: opened for reading, bytes unknown (its stamp);
 * - `list` / `list-r`: a folder's entries (their names; `list-r` with everything below);
 * - `stat` / `lstat`: what it is (a file, a folder, a link, missing), not its contents or times;
 * - `exists`: whether it is there.
 * A folder that is only listed or stat'ed does not change when a file inside it is written: an
 * extension that writes into its own folder is not reloaded for that.
 */
export type ReadHow = 'read' | 'open' | 'list' | 'list-r' | 'stat' | 'lstat' | 'exists';

export interface ReadRecord {
  how: ReadHow;
  path: string;
  /** What `observe(how, path)` gave when it was read (for `read`, the stamp before the read). */
  value: string;
  /** `read`: the digest of the bytes read, so a file touched or rewritten unchanged stays. */
  digest?: string;
  /** `read`: the encoding the bytes were read as, when they came back as text. */
  encoding?: BufferEncoding;
}

/** What is at a path, links followed; undefined when nothing is (or it cannot be reached). */
export type Look = (path: string) => Stats | undefined;

/** `statSync`, without an error for what is not there. */
export const look: Look = (path) => statOf(path, statSync);

/**
 * A `Look` that asks the file system once per path: one check of a watch set looks at many paths
 * more than once (a folder for its entries and as a path read, a file stat'ed and read).
 */
export function lookOnce(): Look {
  const seen = new Map<string, Stats | undefined>();
  return (path) => {
    if (seen.has(path)) return seen.get(path);
    const stats = look(path);
    seen.set(path, stats);
    return stats;
  };
}

/** Inode, size, modification and change times; `missing` when there is nothing at `path`. */
export function stampOf(path: string, at: Look = look): string {
  const stats = at(path);
  return stats === undefined
    ? 'missing'
    : `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

export function kindOf(stats: Stats | undefined): string {
  if (stats === undefined) return 'missing';
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isDirectory()) return 'dir';
  return stats.isFile() ? 'file' : 'other';
}

/** A folder's entries as one value (sorted names); `missing` when it cannot be listed. */
export function listingOf(names: ReadonlyArray<string | Buffer | { name: string | Buffer }>) {
  const plain = names.map((entry) =>
    typeof entry === 'string' || Buffer.isBuffer(entry) ? String(entry) : String(entry.name),
  );
  return digestOf(plain.sort().join('\0'));
}

export function digestOf(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What `how` finds at `path` now (`at`: how a path is looked at, links followed). */
export function observe(how: ReadHow, path: string, at: Look = look): string {
  switch (how) {
    case 'read':
    case 'open':
      return stampOf(path, at);
    case 'list':
    case 'list-r':
      try {
        return listingOf(readdirSync(path, { recursive: how === 'list-r' }));
      } catch {
        return 'missing';
      }
    case 'stat':
      return kindOf(at(path));
    case 'lstat':
      return kindOf(statOf(path, lstatSync));
    case 'exists':
      return at(path) === undefined ? 'no' : 'yes';
  }
}

/**
 * Whether `record` still holds. A file read whose stamp changed holds when its bytes did not (it
 * is read again, after its new stamp is taken, and the record takes that stamp).
 */
export function stillHolds(record: ReadRecord, at: Look = look): boolean {
  const now = observe(record.how, record.path, at);
  if (now === record.value) return true;
  if (record.how !== 'read' || record.digest === undefined || now === 'missing') return false;
  try {
    // As the recorder digested it: the bytes, also of what was read as text.
    const bytes = readFileSync(record.path, record.encoding);
    const raw = typeof bytes === 'string' ? Buffer.from(bytes, record.encoding) : bytes;
    if (digestOf(raw) !== record.digest) return false;
  } catch {
    return false;
  }
  record.value = now;
  return true;
}

function statOf(path: string, stat: typeof statSync): Stats | undefined {
  try {
    // Not there is the common answer (a resolver's tries): no error is made for it.
    return stat(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
