import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { replaceFile, underFileLock } from '../../fs/locked-file.js';
import { hermesHomeOf } from '../protected/ground.js';
import { LASTING_MAX_AGE_MS, sweepLimits } from './lasting-sweep.js';
import { describe } from './slot.js';

/**
 * Counts that outlive a turn (docs/policy.md, Budgets beyond a turn): one small JSON file per
 * count in `$HERMES_HOME/limits/`, read, changed and written with the file's owned lock held —
 * the lock the turn store takes (src/fs/owned-lock.ts) — so the hook processes of one session,
 * the daemon that answers some of them and an in-process host all change one count in turn.
 *
 * `$HERMES_HOME` is taken as protected ground places it (protected/ground.ts): the agent may not
 * write, move or remove these files by any tool, so it cannot start a count again.
 */

/** How far a budget's count reaches: one turn (in the turn's state), a session, or a time window. */
export type BudgetScope = 'turn' | 'session' | 'window';

/** A count's record: how many so far, or when each counted call was made (a window's). */
interface LastingRecord {
  key: string;
  count?: number;
  times?: number[];
}

/** What a call past a lasting count is told; a string is why the count cannot be read. */
export type Taken = 'taken' | 'full' | string;

/** The folder of the lasting counts under `home`. */
export function limitsFolder(home: string): string {
  return join(home, 'limits');
}

/**
 * One lasting count, named by `key` (the budget's slot and, for a session, the session's id).
 * The file name is the key's digest: a session id is the host's text, of any length and any
 * characters, and must not pick where the file goes.
 */
export class LastingCount {
  readonly #label: string;

  constructor(label: string) {
    this.#label = label;
  }

  #folder(): string {
    return limitsFolder(hermesHomeOf(process.env));
  }

  #file(key: string): string {
    return join(this.#folder(), `${sha256(key).slice(0, 40)}.json`);
  }

  /**
   * Counts one call against `max` when there is room: 'taken' when counted, 'full' when the
   * count is at `max` already (nothing counted). With `windowMs`, only the calls of the last
   * `windowMs` count, and older ones are dropped from the record.
   */
  take(key: string, max: number, windowMs?: number): Promise<Taken> {
    return this.#change(key, (record) => {
      if (windowMs === undefined) {
        const count = record?.count ?? 0;
        if (count >= max) return { result: 'full' };
        return { result: 'taken', next: { key, count: count + 1 } };
      }
      const now = Date.now();
      const recent = (record?.times ?? []).filter((at) => at > now - windowMs && at <= now);
      if (recent.length >= max) return { result: 'full', next: { key, times: recent } };
      return { result: 'taken', next: { key, times: [...recent, now] } };
    });
  }

  /** Sets a plain count (a row of refusals: one more, or back to 0). */
  set(key: string, count: number): Promise<number | string> {
    return this.#change(key, () => ({ result: count, next: { key, count } }));
  }

  async #change<T>(
    key: string,
    change: (record: LastingRecord | undefined) => { result: T; next?: LastingRecord },
  ): Promise<T | string> {
    const file = this.#file(key);
    try {
      const result = await underFileLock(file, () => {
        const record = readRecord(file, key);
        if (typeof record === 'string') return `${this.#label}: ${record}`;
        const { result, next } = change(record);
        if (next !== undefined) replaceFile(file, JSON.stringify(next));
        return result;
      });
      sweepLimits(this.#folder());
      return result;
    } catch (error) {
      return `${this.#label}: its count in ${file} cannot be kept (${oneLine(error)}), so the call is refused. Check that $HERMES_HOME can be written by the user running the agent.`;
    }
  }
}

/** The record in `file`; none when there is no file; a string saying what is wrong with it. */
function readRecord(file: string, key: string): LastingRecord | undefined | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `its count in ${file} cannot be read (${oneLine(error)}), so it cannot tell how many calls were made and refuses this one`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  const record = parsed as Partial<LastingRecord> | null;
  const counts =
    record !== null &&
    typeof record === 'object' &&
    record.key === key &&
    (record.count === undefined || (Number.isSafeInteger(record.count) && record.count >= 0)) &&
    (record.times === undefined ||
      (Array.isArray(record.times) && record.times.every((at) => Number.isFinite(at))));
  if (counts) return record as LastingRecord;
  return `its count in ${file} holds ${describe(parsed)}, not a count it wrote, so it cannot tell how many calls were made and refuses this one. Only the framework writes there (the folder is protected ground); the user may delete the file in a terminal to start the count again`;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] as string;
}

/** A window's length as a budget's `window` gives it: `30s`, `10m`, `2h`, `1d`, `1w` (the units of `--since`). */
const DAY_MS = 86_400_000;
const UNITS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Checks a budget's `scope` and `window`; the window in milliseconds when the scope is one. */
export function checkScope(
  maker: string,
  scope: unknown,
  window: unknown,
): { scope: BudgetScope; windowMs?: number } {
  const chosen = scope ?? 'turn';
  if (chosen !== 'turn' && chosen !== 'session' && chosen !== 'window') {
    throw new TypeError(
      `${maker}({ scope }): scope must be 'turn', 'session' or 'window', got ${describe(scope)}`,
    );
  }
  if (chosen !== 'window') {
    if (window !== undefined) {
      throw new TypeError(
        `${maker}({ window }): window is for scope: 'window' (a count over the last so long); this budget's scope is '${chosen}'`,
      );
    }
    return { scope: chosen };
  }
  const parts = typeof window === 'string' ? /^([1-9]\d*)([smhdw])$/.exec(window.trim()) : null;
  const windowMs =
    parts === null ? Number.NaN : Number(parts[1]) * (UNITS[parts[2] as string] as number);
  // Counts untouched longer than the longest window are swept (lasting-sweep.ts).
  if (!(windowMs <= LASTING_MAX_AGE_MS - DAY_MS)) {
    throw new TypeError(
      `${maker}({ window }): window must be a duration such as '10m' (a whole number and s, m, h, d or w), at most 29d, got ${describe(window)}`,
    );
  }
  return { scope: chosen, windowMs };
}

/** How a message names a scope: `per turn`, `per session`, `in any 10m`. */
export function scopeWords(scope: BudgetScope, window: unknown): string {
  return scope === 'window' ? `in any ${String(window).trim()}` : `per ${scope}`;
}

/**
 * The key of a lasting count: a session's own, or the window's, which every session of the user
 * shares — a new session (one the agent starts itself) does not start a window again. A string
 * with `error` when a session budget is asked without a session id.
 */
export function lastingKey(
  slotKey: string,
  scope: 'session' | 'window',
  sessionId: unknown,
): { key: string } | { error: string } {
  if (scope === 'window') return { key: `${slotKey}@window` };
  if (typeof sessionId !== 'string' || sessionId === '') {
    return {
      error: `a session budget needs the event's sessionId, got ${describe(sessionId)}, so it refuses the call`,
    };
  }
  return { key: `${slotKey}@session:${sessionId}` };
}
