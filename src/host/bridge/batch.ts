import { checkRequest, isRejected, RPC, type RpcId, type RpcRequest } from './json-rpc.js';

export interface BatchOptions {
  /** Runs one request to its answer line; undefined for a notification. Never rejects. */
  respond(request: RpcRequest): Promise<string | undefined>;
  /** The session of the open turn an id names, if one is open. */
  sessionOfTurn(turnId: string): string | undefined;
  /** Elements of this batch run at once, at most. */
  maxConcurrent: number;
}

/**
 * A JSON-RPC 2.0 batch (a line holding an array), answered element by element as the spec says:
 * one array of answers in request order, none for a notification, no line at all when every
 * element is a notification; an empty array is one -32600; an element that is no request gets
 * its own -32600, answered as the same value on its own line would be (id null unless it gave a
 * valid one). The answer leaves as one line once every element is answered, so a slow element
 * holds the answers of the others: a host that wants them as they come sends separate lines.
 *
 * Elements of one session run one after the other, in batch order, each once the one before has
 * been answered, as they would if the host sent each and waited for its answer: a `turn/start`,
 * the calls of that turn and its `turn/end` can share a batch. The session is the request's
 * `session_id`, or that of the turn its `turn_id` names (opened earlier in the batch or before
 * it). Elements of different sessions, and those of none (`initialize`), run side by side, at
 * most `maxConcurrent` at once, so a batch as long as the line cap allows holds no more work in
 * flight than the server's own limit.
 */
export async function answerBatch(
  elements: readonly unknown[],
  options: BatchOptions,
): Promise<string | undefined> {
  if (elements.length === 0) {
    return errorLine(null, RPC.invalidRequest, 'an empty batch holds no request');
  }
  const slots = new Slots(options.maxConcurrent);
  /** The last answer of each session so far: the next element of that session waits for it. */
  const lastOfSession = new Map<string, Promise<unknown>>();
  /** Turns this batch starts, by id: calls later in the batch name them before they are open. */
  const startedTurns = new Map<string, string>();

  const answers = elements.map((element) => {
    const request = checkRequest(element);
    if (isRejected(request)) {
      return errorLine(request.id, request.rejected.code, request.rejected.message);
    }
    const session = sessionOf(request, startedTurns, options.sessionOfTurn);
    const before = session === undefined ? undefined : lastOfSession.get(session);
    const answer = (async () => {
      await before;
      await slots.take();
      try {
        return await options.respond(request);
      } finally {
        slots.give();
      }
    })();
    if (session !== undefined) lastOfSession.set(session, answer);
    return answer;
  });

  const lines = (await Promise.all(answers)).filter((line) => line !== undefined);
  return lines.length === 0 ? undefined : `[${lines.join(',')}]`;
}

/** The session a request works in, if its params tell: its own, or that of the turn it names. */
function sessionOf(
  request: RpcRequest,
  startedTurns: Map<string, string>,
  sessionOfTurn: (turnId: string) => string | undefined,
): string | undefined {
  const { params } = request;
  if (params === null || typeof params !== 'object') return undefined;
  const { session_id: sessionId, turn_id: turnId } = params as Record<string, unknown>;
  if (typeof sessionId === 'string') {
    if (request.method === 'turn/start' && typeof turnId === 'string') {
      startedTurns.set(turnId, sessionId);
    }
    return sessionId;
  }
  if (typeof turnId !== 'string') return undefined;
  // A turn nobody opened keeps its calls in order among themselves (they are answered -32001).
  return startedTurns.get(turnId) ?? sessionOfTurn(turnId) ?? `\0turn ${turnId}`;
}

export function errorLine(id: RpcId, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

/** A counting semaphore: `take` waits while `size` holders have not given theirs back. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#free++;
    else next();
  }
}
