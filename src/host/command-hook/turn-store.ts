import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One turn's state between the separate hook processes of that turn. */
export interface StoredTurn {
  turnId: string;
  state: Record<string, unknown>;
}

const LOCK_WAIT_MS = 10;
const LOCK_GIVE_UP_MS = 10_000;
/** A lock older than this was left by a process that died holding it. */
const LOCK_STALE_MS = 30_000;

/**
 * The store cannot be used (a folder that cannot be written, a corrupt file, a lock that is never
 * released). One line that names the path: a tool call is refused with it, so it must say what
 * to fix.
 */
export class TurnStoreError extends Error {
  override readonly name = 'TurnStoreError';
}

/**
 * The per-turn state of command-hook sessions, kept under `$HERMES_HOME/turns/`, one file per
 * session, read and written under a lock (an atomic `mkdir`), so parallel `PreToolUse` processes
 * of one turn see each other's writes instead of overwriting them.
 */
export class TurnStore {
  readonly #dir: string;

  constructor(home: string) {
    this.#dir = join(home, 'turns');
  }

  /**
   * Runs `fn` with the session's turn, then saves what it returns. A new turn is started when
   * `fresh`, when none is stored, or when the agent names its turns (`turnId`) and the stored one
   * has another name: a turn that never stopped (an interrupted one) does not leak into the next.
   */
  async update<T>(
    sessionId: string,
    which: { fresh?: boolean; turnId?: string | undefined },
    fn: (turn: StoredTurn) => Promise<{ result: T; state: Record<string, unknown> }>,
  ): Promise<T> {
    return this.#locked(sessionId, async () => {
      const stored = which.fresh ? undefined : this.#read(sessionId);
      const current =
        stored !== undefined && (which.turnId === undefined || stored.turnId === which.turnId)
          ? stored
          : undefined;
      const turn = current ?? { turnId: which.turnId ?? randomUUID(), state: {} };
      const { result, state } = await fn(turn);
      this.#write(sessionId, { turnId: turn.turnId, state });
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
   * The turn ended: its state goes. At the end of the whole session (`session`), so does the
   * record of what the user was already told.
   */
  async end(sessionId: string, options: { session?: boolean } = {}): Promise<void> {
    await this.#locked(sessionId, async () => {
      this.#remove(this.#file(sessionId));
      if (options.session) this.#remove(this.#toldFile(sessionId));
    });
  }

  /**
   * Of `notices`, those this session has not been told yet, now recorded as told. Kept next to the
   * turn's state but apart from it: extensions see the state, never this. A told-file that cannot
   * be read counts as nothing told (telling twice is harmless).
   */
  async tellOnce(sessionId: string, notices: readonly string[]): Promise<string[]> {
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
      const fresh = notices.filter((notice) => !told.includes(notice));
      if (fresh.length > 0) this.#writeFile(file, [...told, ...fresh]);
      return fresh;
    });
  }

  #file(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.json`);
  }

  #toldFile(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.told`);
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
    let stored: StoredTurn | undefined;
    try {
      stored = JSON.parse(text) as StoredTurn;
    } catch {
      stored = undefined;
    }
    if (
      typeof stored?.turnId !== 'string' ||
      stored.state === null ||
      typeof stored.state !== 'object' ||
      Array.isArray(stored.state)
    ) {
      throw new TurnStoreError(
        `the turn state ${file} is corrupt; delete it (the next prompt starts a new one)`,
      );
    }
    return stored;
  }

  #write(sessionId: string, turn: StoredTurn): void {
    this.#writeFile(this.#file(sessionId), turn);
  }

  #writeFile(file: string, value: unknown): void {
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
      renameSync(temporary, file);
    } catch (error) {
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
    const lock = `${this.#file(sessionId)}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        mkdirSync(lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new TurnStoreError(`cannot lock the turn state ${lock}: ${oneLine(error)}`);
        }
        const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
        else if (Date.now() - started > LOCK_GIVE_UP_MS)
          throw new TurnStoreError(
            `timed out after ${LOCK_GIVE_UP_MS / 1000} s waiting for the lock ${lock}; remove it if no hermes hook is running`,
          );
        else await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
      }
    }
    try {
      return await fn();
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] as string;
}
