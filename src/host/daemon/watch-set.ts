import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type ReadRecord, stampOf, stillHolds } from './read-stamps.js';

/** Past this many records, a runtime is not kept: it is loaded per event, as without the daemon. */
const MAX_RECORDS = 20_000;
/**
 * How long before a folder's stamp its last change must be for the stamp to stand for its names:
 * a file system's clock ticks coarsely (a few ms on Linux, a second or two elsewhere), so a name
 * added in the tick of the stamp could leave its times as they were.
 */
const SETTLED_MS = 3_000;
/**
 * A folder with this many missing paths or fewer has each looked at (a `stat` each) rather than
 * the folder listed: one try in a large folder (`/tmp/node_modules`) must not read all of `/tmp`.
 */
const LOOK_EACH = 4;

/** The paths missing at load in one folder, and the folder's stamp when they were last found so. */
interface AbsentIn {
  records: ReadRecord[];
  /** `stampOf` the folder, taken before a listing that found every name missing; settled only. */
  stamp: string | undefined;
}

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
  readonly #absent = new Map<string, AbsentIn>();
  readonly #size: number;

  readonly #settledMs: number;

  /** `settledMs`: SETTLED_MS, shorter in tests only. */
  constructor(records: readonly ReadRecord[], settledMs = SETTLED_MS) {
    this.#settledMs = settledMs;
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
      const inFolder = this.#absent.get(folder) ?? { records: [], stamp: undefined };
      inFolder.records.push({ ...record });
      this.#absent.set(folder, inFolder);
    }
    this.#size = seen.size;
  }

  /**
   * Whether anything recorded differs now; always true past MAX_RECORDS. Checked before every
   * event the runtime answers, on the daemon's one main thread: a folder whose stamp is the one
   * taken before a listing found its names missing is not listed again (a name added or removed
   * changes its modification and change times), which spares a large folder (`node_modules`)
   * being read on every event.
   */
  changed(): boolean {
    if (this.#size > MAX_RECORDS) return true;
    for (const [folder, absent] of this.#absent) {
      if (absent.records.length <= LOOK_EACH) {
        if (!absent.records.every(stillHolds)) return true;
        continue;
      }
      const stamp = stampOf(folder);
      if (stamp === absent.stamp) continue;
      const names = namesIn(folder);
      if (names === 'none') continue;
      for (const record of absent.records) {
        // Listed (a case-insensitive file system may show it under another case): look closely.
        const listed = names === 'unknown' || names.has(basename(record.path).toLowerCase());
        if (listed && !stillHolds(record)) return true;
      }
      // Every name is still missing: kept only when no change can hide in the stamp's tick, and
      // not for a folder that could not be read (its names were each looked at instead).
      absent.stamp = names !== 'unknown' && settled(stamp, this.#settledMs) ? stamp : undefined;
    }
    return !this.#present.every(stillHolds);
  }

  get size(): number {
    return this.#size;
  }
}

/**
 * Whether a folder's stamp (`ino:size:mtime:ctime`) was last changed well before now; a folder
 * that is not there is, until something is made there.
 */
function settled(stamp: string, settledMs: number): boolean {
  if (stamp === 'missing') return true;
  const [, , mtime, ctime] = stamp.split(':').map(Number);
  const since = Date.now() - settledMs;
  return mtime !== undefined && ctime !== undefined && mtime < since && ctime < since;
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
