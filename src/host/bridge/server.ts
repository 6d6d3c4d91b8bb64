import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../../log/logger.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { ProcessCrash } from '../process-crash.js';
import { AnswerWriter } from './answer-writer.js';
import { answerBatch, errorLine } from './batch.js';
import {
  checkRequest,
  errorCode,
  errorMessage,
  isRejected,
  parseLine,
  RPC,
  type RpcRequest,
} from './json-rpc.js';
import { type Line, LineTooLong, readLines } from './line-splitter.js';
import { dispatch, serving } from './methods.js';

/** 16 MiB: far past any real request (a long conversation is a few MB), yet a bounded buffer. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Answers held for a host that is not reading them before the server stops reading requests. */
export const DEFAULT_MAX_BUFFERED_ANSWER_BYTES = 1024 * 1024;
/** Far more than a host runs at once (one per session in flight), yet a bound on what is held. */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 256;

export interface BridgeOptions {
  cwd: string;
  home?: string;
  input: Readable;
  output: Writable;
  logger: Logger;
  /** The longest request line, in bytes without its newline; a longer one is answered -32600. */
  maxLineBytes?: number;
  /** Requests handled at once; while this many are in flight, the server reads no more. */
  maxConcurrentRequests?: number;
  /** Bytes of answers the host has not taken yet; past them, the server reads no more. */
  maxBufferedAnswerBytes?: number;
  /**
   * Subscribes to the process's crashes an extension's code causes — uncaught exceptions,
   * unhandled rejections, calls to `process.exit` (src/host/process-crash.ts) — before any
   * extension loads; returns what unsubscribes. None: a host that keeps them to itself (a test).
   */
  crashes?(listener: (crash: ProcessCrash) => void): () => void;
}

/**
 * `hermes extensions serve --stdio`: JSON-RPC 2.0, one message per line, for hosts in other
 * languages (the Python agent above all). Requests are handled as they arrive, so calls of
 * different turns interleave and answers may come out of order (match them by id); a batch (an
 * array of requests on one line) is answered element by element (`batch.ts`). A malformed
 * or too long line gets an error and the server keeps serving; when the input closes, open turns
 * are ended (their state cleared) and the returned promise resolves.
 *
 * A request is read only when there is room for its answer: while `maxBufferedAnswerBytes` of
 * answers wait for a host that stops reading, until the output has drained, or while
 * `maxConcurrentRequests` are in flight, the server reads nothing, so what it holds stays bounded
 * whatever the host does; the host's own writes wait in the pipe.
 *
 * An extension's uncaught exception, unhandled rejection or `process.exit` (`crashes`) does not
 * end the server: the runtime it crashed refuses its calls by each hook's fail rule, naming the
 * extension, and the next turn is decided by the extensions loaded afresh (src/host/served-runtimes.ts).
 */
export async function serveBridge(options: BridgeOptions): Promise<void> {
  const { logger } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxConcurrent = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS;
  // Subscribed before the first load starts: only then is each extension's code told apart.
  let told: ((crash: ProcessCrash) => void) | undefined;
  const stopListening = options.crashes?.((crash) => told?.(crash));
  const served = serving(
    () => loadRuntime({ cwd: options.cwd, home: options.home, logger }),
    options.cwd,
    logger,
  );
  const { runtimes } = served;
  told = (crash) => runtimes.crashed(crash);
  const writer = new AnswerWriter(
    options.output,
    logger,
    options.maxBufferedAnswerBytes ?? DEFAULT_MAX_BUFFERED_ANSWER_BYTES,
  );

  /** Runs one request to its answer line (none for a notification); never rejects. */
  const respond = async ({ id, method, params }: RpcRequest): Promise<string | undefined> => {
    try {
      // A failed load is reported to every request; the host decides.
      await runtimes.serving.runtime;
      const result = await dispatch(served, method, params);
      // Throws when the result is not JSON; answered as the internal error it is, below.
      return id === undefined ? undefined : JSON.stringify({ jsonrpc: '2.0', id, result });
    } catch (error) {
      if (id !== undefined) return errorLine(id, errorCode(error), errorMessage(error));
      logger.warn(`bridge: notification "${method}": ${errorMessage(error)}`);
      return undefined;
    }
  };

  const send = (line: string | undefined) => {
    if (line !== undefined) writer.sendLine(line);
  };

  const batch = async (elements: readonly unknown[]) => {
    send(
      await answerBatch(elements, {
        respond,
        // Only to order a batch's elements by session.
        sessionOfTurn: (turnId) => served.turns.sessionOf(turnId),
        maxConcurrent,
      }),
    );
  };

  /** Answers a line that is no request at once; starts the work of one that is. */
  const take = (line: Line): Promise<void> | undefined => {
    if (line instanceof LineTooLong) {
      writer.sendError(
        null,
        RPC.invalidRequest,
        `request line of ${line.bytes} bytes is longer than the limit of ${maxLineBytes} bytes (--max-line-bytes); skipped`,
      );
      return undefined;
    }
    const text = line.toString('utf8');
    if (text.trim() === '') return undefined;
    const parsed = parseLine(text);
    if (!isRejected(parsed) && Array.isArray(parsed.value)) return batch(parsed.value);
    const request = isRejected(parsed) ? parsed : checkRequest(parsed.value);
    if (isRejected(request)) {
      writer.sendError(request.id, request.rejected.code, request.rejected.message);
      return undefined;
    }
    return inTurnOrder(request).then(send);
  };

  /**
   * A host may pipeline a session's turns, as in a batch: each `turn/start` and `turn/end` of a
   * session waits for the one before it, and a request that names a turn whose `turn/start` is
   * still being answered waits for it. Other requests run side by side, so a call waiting on a
   * person (an `ask`) holds no other call of its turn.
   */
  const lifecycle = new Map<string, Promise<unknown>>();
  const starting = new Map<string, { session: string; answer: Promise<unknown> }>();
  const after = (key: string, map: Map<string, Promise<unknown>>, request: RpcRequest) => {
    const answer = (map.get(key) ?? Promise.resolve()).then(() => respond(request));
    map.set(key, answer);
    void answer.then(() => {
      if (map.get(key) === answer) map.delete(key);
    });
    return answer;
  };
  const inTurnOrder = (request: RpcRequest): Promise<string | undefined> => {
    const params = (request.params ?? {}) as { session_id?: unknown; turn_id?: unknown };
    const turnId = typeof params.turn_id === 'string' ? params.turn_id : undefined;
    if (request.method === 'turn/start' && typeof params.session_id === 'string') {
      const session = params.session_id;
      const answer = after(session, lifecycle, request);
      if (turnId !== undefined) {
        const entry = { session, answer };
        starting.set(turnId, entry);
        void answer.then(() => {
          if (starting.get(turnId) === entry) starting.delete(turnId);
        });
      }
      return answer;
    }
    if (turnId === undefined) return respond(request);
    const start = starting.get(turnId);
    if (request.method === 'turn/end') {
      const session = start?.session ?? served.turns.sessionOf(turnId);
      if (session !== undefined) return after(session, lifecycle, request);
    }
    return start === undefined ? respond(request) : start.answer.then(() => respond(request));
  };

  const inFlight = new Set<Promise<void>>();
  const hasRoom = () => !writer.blocked && inFlight.size < maxConcurrent;
  let wakeReader: (() => void) | undefined;
  const roomMayHaveBeenMade = () => {
    if (wakeReader !== undefined && hasRoom()) {
      wakeReader();
      wakeReader = undefined;
    }
  };
  writer.onDrain(roomMayHaveBeenMade);

  for await (const line of readLines(options.input, maxLineBytes, logger)) {
    while (!hasRoom()) {
      await new Promise<void>((resolve) => {
        wakeReader = resolve;
      });
    }
    const work = take(line);
    if (work === undefined) continue;
    inFlight.add(work);
    void work.then(() => {
      inFlight.delete(work);
      roomMayHaveBeenMade();
    });
  }

  // The host closed its end: answer what it asked, end the turns it left open, then close the
  // runtimes so extensions flush what they buffered.
  await Promise.allSettled(inFlight);
  await served.turns.endAll();
  await runtimes.close();
  stopListening?.();
}
