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

  /** The turn ended: its state goes. */
  async end(sessionId: string): Promise<void> {
    await this.#locked(sessionId, async () => {
      rmSync(this.#file(sessionId), { force: true });
    });
  }

  #file(sessionId: string): string {
    return join(this.#dir, `${encodeURIComponent(sessionId)}.json`);
  }

  #read(sessionId: string): StoredTurn | undefined {
    try {
      const stored = JSON.parse(readFileSync(this.#file(sessionId), 'utf8')) as StoredTurn;
      return typeof stored?.turnId === 'string' && stored.state && typeof stored.state === 'object'
        ? stored
        : undefined;
    } catch {
      return undefined;
    }
  }

  #write(sessionId: string, turn: StoredTurn): void {
    const file = this.#file(sessionId);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(turn), { mode: 0o600 });
    renameSync(temporary, file);
  }

  async #locked<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    mkdirSync(this.#dir, { recursive: true });
    const lock = `${this.#file(sessionId)}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        mkdirSync(lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
        else if (Date.now() - started > LOCK_GIVE_UP_MS)
          throw new Error(`timed out waiting for ${lock}`);
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
