import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type ReadRecord, stillHolds } from './read-stamps.js';

/** Past this many records, a runtime is not kept: it is loaded per event, as without the daemon. */
const MAX_RECORDS = 20_000;

/**
 * What loading one runtime read (read-recorder.ts: each file stamped before it was read, each
 * folder by the names listed), checked by the daemon before the runtime answers another event:
 * if any of it changed, the runtime is not the one a fresh process would load now.
 *
 * Most of what loading looks at is not there: a module resolver tries name after name. Those are
 * checked by their folders, one listing each, instead of one `stat` each: a path stays missing
 * while its folder does not list its name (a folder that is gone or is no folder lists nothing).
 */
export class WatchSet {
  readonly #present: ReadRecord[] = [];
  /** Records of paths that were not there, by the folder they would be in. */
  readonly #absent = new Map<string, ReadRecord[]>();
  readonly #size: number;

  constructor(records: readonly ReadRecord[]) {
    // The first look at a path is the one that counts: it was taken before any later read.
    const seen = new Set<string>();
    for (const record of records) {
      const key = `${record.how}\0${record.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!isAbsent(record)) {
        this.#present.push({ ...record });
        continue;
      }
      const folder = dirname(record.path);
      const inFolder = this.#absent.get(folder) ?? [];
      inFolder.push({ ...record });
      this.#absent.set(folder, inFolder);
    }
    this.#size = seen.size;
  }

  /** Whether anything recorded differs now; always true past MAX_RECORDS. */
  changed(): boolean {
    if (this.#size > MAX_RECORDS) return true;
    for (const [folder, records] of this.#absent) {
      const names = namesIn(folder);
      if (names === 'none') continue;
      for (const record of records) {
        // Listed (a case-insensitive file system may show it under another case): look closely.
        const listed = names === 'unknown' || names.has(basename(record.path).toLowerCase());
        if (listed && !stillHolds(record)) return true;
      }
    }
    return !this.#present.every(stillHolds);
  }

  get size(): number {
    return this.#size;
  }
}

function isAbsent(record: ReadRecord): boolean {
  if (record.how === 'exists') return record.value === 'no';
  return (record.how === 'stat' || record.how === 'lstat') && record.value === 'missing';
}

/** The names in `folder`, lower case; `none` when nothing can be in it; `unknown` if unreadable. */
function namesIn(folder: string): Set<string> | 'none' | 'unknown' {
  try {
    return new Set(readdirSync(folder).map((name) => name.toLowerCase()));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'none' : 'unknown';
  }
}
