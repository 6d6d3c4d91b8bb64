import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type Look, lookOnce, type ReadRecord, stillHolds } from './read-stamps.js';

/** Past this many records, a runtime is not kept: it is loaded per event, as without the daemon. */
const MAX_RECORDS = 20_000;

/**
 * How long a folder must have been still before its listing is kept: longer than the coarsest
 * clock a file system stamps changes with (FAT's two seconds; ext4 and tmpfs a clock tick). A
 * change made just after a folder's last one may carry the same time, so the stamp of a folder
 * that changed within this span before it was listed says nothing of what came after.
 */
const SETTLED_MS = 2_000;

/** A path recorded as not there, with the name its folder would list it by (lower case). */
interface Absent {
  record: ReadRecord;
  name: string;
}

/**
 * A folder's listing as last taken, and the stamp it had before: what it says of the folder's
 * absent records is all that is kept, the records whose name it lists (mostly none).
 */
interface Listing {
  stamp: string;
  listed: Absent[];
}

/**
 * What loading one runtime read (read-recorder.ts: each file stamped before it was read, each
 * folder by the names listed), checked by the daemon before the runtime answers another event:
 * if any of it changed, the runtime is not the one a fresh process would load now.
 *
 * Most of what loading looks at is not there: a module resolver tries name after name. Those are
 * checked by their folders, one listing each, instead of one `stat` each: a path stays missing
 * while its folder does not list its name (a folder that is gone or is no folder lists nothing).
 * And a folder is listed again only when its own stamp changed (device, inode, modification and
 * change times: adding, removing or renaming an entry sets both times; another folder put in its
 * place, or a link led elsewhere, has another inode) — a `stat` where a listing took a read of
 * every name, on every event.
 */
export class WatchSet {
  readonly #present: ReadRecord[] = [];
  /** Records of paths that were not there, by the folder they would be in. */
  readonly #absent = new Map<string, Absent[]>();
  readonly #size: number;
  readonly #listings = new Map<string, Listing>();
  readonly #settledMs: number;

  constructor(records: readonly ReadRecord[], options: { settledMs?: number } = {}) {
    this.#settledMs = options.settledMs ?? SETTLED_MS;
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
      // A case-insensitive file system may list it under another case: names compare lower case.
      inFolder.push({ record: { ...record }, name: basename(record.path).toLowerCase() });
      this.#absent.set(folder, inFolder);
    }
    this.#size = seen.size;
  }

  /** Whether anything recorded differs now; always true past MAX_RECORDS. */
  changed(): boolean {
    if (this.#size > MAX_RECORDS) return true;
    const at = lookOnce();
    for (const [folder, absent] of this.#absent) {
      // Listed (under this name or another case of it): looked at closely.
      for (const { record } of this.#listedIn(folder, absent, at)) {
        if (!stillHolds(record, at)) return true;
      }
    }
    return !this.#present.every((record) => stillHolds(record, at));
  }

  get size(): number {
    return this.#size;
  }

  /**
   * The absent records of `folder` whose name it lists now: none when nothing can be in it, all
   * when it cannot be listed. From the listing kept when the folder's stamp is the one it had
   * before it was listed, and it had been still for SETTLED_MS by then: a few thousand records
   * of a module resolver's tries are then one `stat` of their folder, not a name each.
   */
  #listedIn(folder: string, absent: Absent[], at: Look): Absent[] {
    const now = Date.now();
    // Not reachable is as good as gone: nothing in it can be reached either.
    const stats = at(folder);
    if (stats === undefined || !stats.isDirectory()) return NONE;
    const stamp = `${stats.dev}:${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`;
    const lastChange = Math.max(stats.mtimeMs, stats.ctimeMs);
    const kept = this.#listings.get(folder);
    if (kept?.stamp === stamp) return kept.listed;
    this.#listings.delete(folder);
    let names: Set<string>;
    try {
      names = new Set(readdirSync(folder).map((name) => name.toLowerCase()));
    } catch (error) {
      return unlistable(error) ? NONE : absent;
    }
    const listed = absent.filter(({ name }) => names.has(name));
    if (now - lastChange > this.#settledMs) this.#listings.set(folder, { stamp, listed });
    return listed;
  }
}

const NONE: Absent[] = [];

function isAbsent(record: ReadRecord): boolean {
  if (record.how === 'exists') return record.value === 'no';
  return (record.how === 'stat' || record.how === 'lstat') && record.value === 'missing';
}

/** Whether a folder that cannot be listed holds nothing: it is gone, or no folder. */
function unlistable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
