import { type ReadRecord, stillHolds } from './read-stamps.js';

/** Past this many records, a runtime is not kept: it is loaded per event, as without the daemon. */
const MAX_RECORDS = 20_000;

/**
 * What loading one runtime read (read-recorder.ts: each file stamped before it was read, each
 * folder by the names listed), checked by the daemon before the runtime answers another event:
 * if any of it changed, the runtime is not the one a fresh process would load now.
 */
export class WatchSet {
  readonly #records: ReadRecord[];

  constructor(records: readonly ReadRecord[]) {
    // The first look at a path is the one that counts: it was taken before any later read.
    const seen = new Set<string>();
    this.#records = [];
    for (const record of records) {
      const key = `${record.how}\0${record.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.#records.push({ ...record });
    }
  }

  /** Whether anything recorded differs now; always true past MAX_RECORDS. */
  changed(): boolean {
    if (this.#records.length > MAX_RECORDS) return true;
    return !this.#records.every(stillHolds);
  }

  get size(): number {
    return this.#records.length;
  }
}
