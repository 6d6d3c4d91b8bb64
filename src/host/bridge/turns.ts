import { TurnInProgressError } from '../../runtime/errors.js';
import type { Turn } from '../../runtime/turn.js';
import type { ServedRuntime, ServedRuntimes } from '../served-runtimes.js';
import { errorMessage, RPC, RpcError } from './json-rpc.js';

interface OpenTurn {
  turn: Turn;
  /** The runtime it runs in: once that crashes, the turn's calls are refused (served-runtimes.ts). */
  runtime: ServedRuntime;
  /** Ends the turn: `runTurn`'s body returns. */
  finish: () => void;
  /** Settles once the turn has ended and its state is cleared. */
  closed: Promise<unknown>;
}

/**
 * The bridge's open turns, by id. A turn id names one open turn of this server: a `turn/start`
 * naming an id that is open, for whatever session, is refused (-32602), so a call naming an id
 * runs in that turn and no other. The id is free again once `turn/end` has been read for it;
 * from then on calls naming it get -32001 until a new turn takes it. Ended ids are not
 * remembered, so a long-running server does not grow with every turn it has served.
 *
 * A turn starts in the runtime serving then, loaded afresh if the one before crashed
 * (served-runtimes.ts); a session whose turn is still open in a crashed runtime gets no second turn
 * (-32002) until that one is ended, as within one runtime.
 */
export class BridgeTurns {
  readonly #open = new Map<string, OpenTurn>();
  /** Turns being ended, by session: a next turn of the session waits for them. */
  readonly #ending = new Map<string, Promise<unknown>>();

  constructor(private readonly runtimes: ServedRuntimes) {}

  /** The params as `turn/start` checked them. */
  async start(params: {
    session_id: string;
    platform?: string | undefined;
    turn_id?: string | undefined;
  }): Promise<{ turn_id: string }> {
    const { session_id: sessionId, platform, turn_id: askedId } = params;
    // A host that pipelines `turn/end` and the next `turn/start` of a session must not be told
    // the session is busy because the end has not finished yet.
    await this.#ending.get(sessionId);
    const runtime = this.runtimes.fresh();
    const loaded = await runtime.runtime;
    for (const open of this.#open.values()) {
      if (open.turn.sessionId === sessionId && open.runtime !== runtime)
        throw new RpcError(RPC.turnInProgress, new TurnInProgressError(sessionId).message);
    }
    // From this check to `set` below nothing awaits, so two starts cannot both take one id.
    if (askedId !== undefined && this.#open.has(askedId)) {
      throw new RpcError(
        RPC.invalidParams,
        `turn_id "${askedId}" is in use by an open turn; turn ids are unique per server (end that turn, or leave turn_id out to get a fresh one)`,
      );
    }
    let finish: () => void = () => {};
    let opened: Turn | undefined;
    const closed = loaded.runTurn(
      {
        sessionId,
        ...(platform === undefined ? {} : { platform }),
        ...(askedId === undefined ? {} : { turnId: askedId }),
      },
      (turn) => {
        opened = turn;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    );
    if (opened === undefined) throw await refusal(closed);
    this.#open.set(opened.turnId, { turn: opened, runtime, finish, closed });
    return { turn_id: opened.turnId };
  }

  /** The open turn `id` names. */
  get(id: string): OpenTurn {
    const open = this.#open.get(id);
    if (open === undefined) {
      throw new RpcError(RPC.unknownTurn, `no open turn "${id}" (start one with turn/start)`);
    }
    return open;
  }

  /** The session of the open turn `id` names, if one is open. */
  sessionOf(id: string): string | undefined {
    return this.#open.get(id)?.turn.sessionId;
  }

  async end(id: string): Promise<{ ended: true }> {
    const open = this.get(id);
    await this.#close(open);
    return { ended: true };
  }

  /** Ends every open turn (the host has gone); resolves when all are cleared. */
  async endAll(): Promise<void> {
    await Promise.allSettled([...this.#open.values()].map((open) => this.#close(open)));
  }

  async #close(open: OpenTurn): Promise<void> {
    const { sessionId, turnId } = open.turn;
    this.#open.delete(turnId);
    const closed = open.closed.then(
      () => undefined,
      () => undefined,
    );
    this.#ending.set(sessionId, closed);
    open.finish();
    await closed;
    if (this.#ending.get(sessionId) === closed) this.#ending.delete(sessionId);
  }
}

/** Why `runTurn` refused before starting the turn, as the error to answer with. */
async function refusal(closed: Promise<unknown>): Promise<RpcError> {
  const reason = await closed.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (reason instanceof TurnInProgressError)
    return new RpcError(RPC.turnInProgress, reason.message);
  // runTurn checks its options before anything else; the bridge has checked them already, so
  // anything else is the bridge's own fault.
  return new RpcError(RPC.internalError, `cannot start the turn: ${errorMessage(reason)}`);
}
