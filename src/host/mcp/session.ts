import type { Turn } from '../../runtime/turn.js';
import type { ServedRuntime, ServedRuntimes } from '../served-runtimes.js';

/** The turn a call runs in, and the runtime that decides it. */
export interface SessionTurn {
  turn: Turn;
  runtime: ServedRuntime;
}

interface OpenTurn extends SessionTurn {
  /** Ends the turn: `runTurn`'s body returns. */
  finish: () => void;
  /** Settles once the turn has ended and its state is cleared. */
  closed: Promise<unknown>;
}

/**
 * One client's connection to the proxy: its session. An MCP client sends no user prompt, so no
 * message says where one turn of its agent ends and the next begins; the proxy keeps one turn
 * open for the whole connection, started at the first call that needs it and ended when the
 * client disconnects (docs/mcp.md, Sessions and turns). What extensions keep in `turn.state`
 * lasts as long as the connection. An extension that crashes the runtime ends the turn with it:
 * the call in flight is refused (served-runtimes.ts), and the next call starts a new turn in the
 * extensions loaded afresh.
 */
export class ProxySession {
  #open: OpenTurn | undefined;
  #starting: Promise<SessionTurn> | undefined;

  constructor(
    private readonly runtimes: ServedRuntimes,
    readonly sessionId: string,
  ) {}

  /** The turn to run a call in; rejects when the extensions cannot be loaded. */
  turn(): Promise<SessionTurn> {
    const open = this.#open;
    if (open !== undefined && open.runtime.crash === undefined) return Promise.resolve(open);
    // Two calls at once share the one turn they start.
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** Ends the open turn, if any (the client has gone); resolves when its state is cleared. */
  async end(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return;
    open.finish();
    await open.closed.catch(() => undefined);
  }

  async #start(): Promise<SessionTurn> {
    await this.end();
    const runtime = this.runtimes.fresh();
    const loaded = await runtime.runtime;
    let finish: () => void = () => {};
    let opened: Turn | undefined;
    const closed = loaded.runTurn({ sessionId: this.sessionId, platform: 'mcp' }, (turn) => {
      opened = turn;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    if (opened === undefined) {
      // runTurn refuses before the body only for a session with a turn open, and this session's
      // one turn was ended above.
      throw await closed.then(
        () => new Error('the turn could not be started'),
        (error: unknown) => error,
      );
    }
    this.#open = { turn: opened, runtime, finish, closed };
    return this.#open;
  }
}
