import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonDataCopy } from '../../chain/json-data.js';
import { acquireOwnedLock, LockTimeoutError, type OwnedLock } from '../../fs/owned-lock.js';
import { readPin, type SessionPin } from './session-pin.js';
import { isStoredTurn, type StoredTurn } from './turn-record.js';
import { TurnStoreError } from './turn-store-error.js';
import { sweepTurnFolder } from './turn-sweep.js';

export type { SessionPin } from './session-pin.js';
export type { DecidedCall, RunningSubagent, StoredTurn, UncheckedCall } from './turn-record.js';
export { TurnStoreError } from './turn-store-error.js';

/**
 * What a turn's process hands back to be saved, besides its result: the state, and any other
 * field of the stored turn it changes (one left out keeps its stored value).
 */
export type TurnUpdate<T> = { result: T; state: Record<string, unknown> } & Partial<
  Omit<StoredTurn, 'turnId' | 'state'>
>;

/** A result with nothing to save: the stored turn stays as it is (not even rewritten). */
export interface TurnUnchanged<T> {
  result: T;
  unchanged: true;
}

/**
 * Something to tell the user once per session: its text, or the text and the key it is told
 * once by (a text that varies, such as a count, is still told once).
 */
export type Notice = string | { key: string; text: string };

export interface TurnStoreOptions {
  /**
   * How long a hook waits for a live hook of the same session to finish with the state before it
   * gives up (a PreToolUse is then refused). Well below the agents' own hook timeouts, past which
   * they run the call. Default 10 s.
   */
  lockTimeoutMs?: number;
  /** State untouched this long belongs to a turn that never got its `Stop`. Default one day. */
  maxAgeMs?: number;
  /** At most one look for such state per this long, across all hook processes. Default 1 h. */
  sweepEveryMs?: number;
}

const DEFAULTS: Required<TurnStoreOptions> = {
  lockTimeoutMs: 10_000,
  maxAgeMs: 24 * 60 * 60 * 1000,
  sweepEveryMs: 60 * 60 * 1000,
};

/**
 * The per-turn state of command-hook sessions, kept under `$HERMES_HOME/turns/`, one file per
 * session, read and written under the session's lock (`<session>.lock`, an owned lock: see
 * `src/fs/owned-lock.ts`), so parallel `PreToolUse` processes of one turn see each other's writes
 * instead of overwriting them, a hook killed while holding it does not hold up the next, and a
 * slow one is never overtaken. State of turns that never got their `Stop` is removed by age (see
 * `turn-sweep.ts`).
 */
export class TurnStore {
  readonly #dir: string;
  readonly #options: Required<TurnStoreOptions>;

  constructor(home: string, options: TurnStoreOptions = {}) {
    this.#dir = join(home, 'turns');
    this.#options = { ...DEFAULTS, ...options };
  }

  /**
   * Runs `fn` with the session's turn, then saves what it returns. A new turn is started when
   * `fresh`, when none is stored, or when the agent names its turns (`turnId`) and the stored one
   * has another name: a turn that never stopped (an interrupted one) does not leak into the next.
   * A fresh turn's old state is removed before `fn` runs, so if saving the new one fails, the
   * next call starts empty rather than in the last turn's state.
   */
  async update<T>(
    sessionId: string,
    which: { fresh?: boolean; turnId?: string | undefined },
    fn: (turn: StoredTurn) => Promise<TurnUpdate<T> | TurnUnchanged<T>>,
  ): Promise<T> {
    return this.#locked(sessionId, async () => {
      if (which.fresh) this.#remove(this.#file(sessionId));
      const stored = which.fresh ? undefined : this.#read(sessionId);
      const current =
        stored !== undefined && (which.turnId === undefined || stored.turnId === which.turnId)
          ? stored
          : undefined;
      const turn = current ?? { turnId: which.turnId ?? randomUUID(), state: {} };
      const change = await fn(turn);
      if ('unchanged' in change) return change.result;
      const {
        result,
        state,
        reports = turn.reports,
        iteration = turn.iteration,
        prompt = turn.prompt,
        decisions = turn.decisions,
        unchecked = turn.unchecked,
        subagents = turn.subagents,
        stoppedSubagents = turn.stoppedSubagents,
        mainStopped = turn.mainStopped,
        refused = turn.refused,
        answerBlocks = turn.answerBlocks,
      } = change;
      this.#writeFile(this.#file(sessionId), {
        turnId: turn.turnId,
        state: stateAsData(state),
        ...(reports === undefined ? {} : { reports }),
        ...(iteration === undefined ? {} : { iteration }),
        ...(prompt === undefined ? {} : { prompt }),
        ...(decisions === undefined ? {} : { decisions }),
        ...(unchecked === undefined ? {} : { unchecked }),
        ...(subagents === undefined || subagents.length === 0 ? {} : { subagents }),
        ...(stoppedSubagents === undefined || stoppedSubagents.length === 0
          ? {}
          : { stoppedSubagents }),
        ...(mainStopped === true ? { mainStopped } : {}),
        ...(refused === undefined ? {} : { refused }),
        ...(answerBlocks === undefined ? {} : { answerBlocks }),
      });
      return result;
    });
  }

  /**
   * The session's stored turn, read without waiting for the lock (a file is replaced whole, never
   * written in place); none when there is none or it cannot be read. For reports, not decisions.
   */
  peek(sessionId: string): StoredTurn | undefined {
    try {
      return this.#read(sessionId);
    } catch {
      return undefined;
    }
  }

  /**
   * Under the session's lock, `decide` sees the stored turn (none when there is none or it cannot
   * be read) and says what becomes of it: `end` removes it (and it is returned as `ended`), a turn
   * is saved as given, `leave` keeps what is there. For the end of a turn that may wait for its
   * subagents (subagent-lifecycle.ts); state is kept as it was stored.
   */
  async settle(
    sessionId: string,
    decide: (turn: StoredTurn | undefined) => StoredTurn | 'end' | 'leave',
  ): Promise<{ ended?: StoredTurn; kept?: StoredTurn }> {
    return this.#locked(sessionId, async () => {
      let stored: StoredTurn | undefined;
      try {
        stored = this.#read(sessionId);
      } catch {
        stored = undefined;
      }
      const decision = decide(stored);
      if (decision === 'leave') return stored === undefined ? {} : { kept: stored };
      if (decision === 'end') {
        this.#remove(this.#file(sessionId));
        return stored === undefined ? {} : { ended: stored };
      }
      this.#writeFile(this.#file(sessionId), decision);
      return { kept: decision };
    });
  }

  /**
   * The turn ended: its state goes, and is returned (none when there was none or it could not be
   * read: the end of a turn never fails on what it removes). At the end of the whole session
   * (`session`), so does the record of what the user was already told.
   */
  async end(
    sessionId: string,
    options: { session?: boolean } = {},
  ): Promise<StoredTurn | undefined> {
    return this.#locked(sessionId, async () => {
      let ended: StoredTurn | undefined;
      try {
        ended = this.#read(sessionId);
      } catch {
        ended = undefined;
      }
      this.#remove(this.#file(sessionId));
      if (options.session) {
        this.#remove(this.#toldFile(sessionId));
        this.#remove(this.#pinFile(sessionId));
      }
      return ended;
    });
  }

  /**
   * Of `notices`, the texts of those this session has not been told yet, now recorded as told
   * (by their key, or their text when they have none). Kept next to the
   * turn's state but apart from it: extensions see the state, never this. A told-file that cannot
   * be read counts as nothing told (telling twice is harmless).
   */
  async tellOnce(sessionId: string, notices: readonly Notice[]): Promise<string[]> {
    if (notices.length === 0) return [];
    return this.#locked(sessionId, async () => {
      const file = this.#toldFile(sessionId);
      let told: string[] = [];
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
        if (Array.isArray(parsed)) told = parsed.filter((n) => typeof n === 'string');
      } catch {
        // Missing or unreadable: nothing told yet.
      }
      const keyOf = (notice: Notice) => (typeof notice === 'string' ? notice : notice.key);
      const fresh = notices.filter((notice) => !told.includes(keyOf(notice)));
      if (fresh.length > 0) this.#writeFile(file, [...told, ...fresh.map(keyOf)]);
      return fresh.map((notice) => (typeof notice === 'string' ? notice : notice.text));
    });
  }

  /**
   * The session's pin: the one stored, else `first()` stored now, under the session's lock (of two
   * first events, the one that stores first wins, and the other reads it). It outlives the turns:
   * only the session's end, or a day untouched (the sweep; a pin in use is touched), removes it.
   */
  async pin(sessionId: string, first: () => SessionPin): Promise<SessionPin> {
    const stored = readPin(this.#pinFile(sessionId));
    if (stored !== undefined) return stored;
    return this.#locked(sessionId, async () => {
      const again = readPin(this.#pinFile(sessionId));
      if (again !== undefined) return again;
      const pin = first();
      this.#writeFile(this.#pinFile(sessionId), pin);
      return pin;
    });
  }

  #pinFile(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.root`);
  }

  #file(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.json`);
  }

  #toldFile(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.told`);
  }

  #lockFile(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.lock`);
  }

  /** The stored turn; none when there is no file. A file that is there but unreadable is an error. */
  #read(sessionId: string): StoredTurn | undefined {
    const file = this.#file(sessionId);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new TurnStoreError(`cannot read the turn state ${file}: ${oneLine(error)}`);
    }
    let stored: unknown;
    try {
      stored = JSON.parse(text);
    } catch {
      stored = undefined;
    }
    if (!isStoredTurn(stored)) {
      throw new TurnStoreError(
        `the turn state ${file} is corrupt; delete it (the next prompt starts a new one)`,
      );
    }
    return stored;
  }

  #writeFile(file: string, value: unknown): void {
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new TurnStoreError(`cannot write the turn state ${file}: ${oneLine(error)}`);
    }
  }

  #remove(file: string): void {
    try {
      rmSync(file, { force: true });
    } catch (error) {
      throw new TurnStoreError(`cannot remove the turn state ${file}: ${oneLine(error)}`);
    }
  }

  async #locked<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    try {
      mkdirSync(this.#dir, { recursive: true });
    } catch (error) {
      throw new TurnStoreError(
        `cannot use the turn-state folder ${this.#dir} ($HERMES_HOME/turns): ${oneLine(error)}`,
      );
    }
    const path = this.#lockFile(sessionId);
    let lock: OwnedLock;
    try {
      lock = await acquireOwnedLock(path, {
        timeoutMs: this.#options.lockTimeoutMs,
        answerWaits: true,
      });
    } catch (error) {
      if (error instanceof LockTimeoutError) throw new TurnStoreError(error.message);
      throw new TurnStoreError(`cannot lock the turn state ${path}: ${oneLine(error)}`);
    }
    let result: T;
    try {
      result = await fn();
    } finally {
      lock.release();
    }
    this.#sweepIfDue();
    return result;
  }

  /** Now and then, state left by turns that never ended goes; a failure here fails no hook. */
  #sweepIfDue(): void {
    try {
      sweepTurnFolder(this.#dir, {
        maxAgeMs: this.#options.maxAgeMs,
        everyMs: this.#options.sweepEveryMs,
      });
    } catch {
      // Cleaning up is opportunistic: the next due sweep tries again.
    }
  }
}

/**
 * The state as JSON data (src/chain/json-data.ts: what handlers return is held to the same rule),
 * or an error naming the key that is not.
 */
function stateAsData(state: Record<string, unknown>): unknown {
  const copy = jsonDataCopy(state, 'state', false);
  if (copy.ok) return copy.value;
  throw new TurnStoreError(
    `the turn state cannot be saved: ${copy.reason} (hook processes share the state as JSON: keep strings, numbers, booleans, null, arrays and plain objects in it)`,
  );
}

function oneLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? String(error.message) : String(error);
  } catch {
    text = 'an error that cannot be read';
  }
  return text.split('\n')[0] as string;
}
