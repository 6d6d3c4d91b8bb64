/**
 * One request to the hook daemon over its socket (client.ts): sent, acknowledged, answered, or
 * the reason it was not. Bundled into the hook client (scripts/bundle-cli.mjs), so it loads only
 * Node's built-ins and the protocol (.dependency-cruiser.cjs, CLIENT_LEAVES).
 */
import { DAEMON_ACK, DAEMON_PROTOCOL, type DaemonAnswer, type DaemonRequest } from './protocol.js';
import { connectTo } from './unix-connection.js';

/** What is kept of the deadline for the in-process answer when an acknowledged daemon is late. */
export const FALLBACK_RESERVE_MS = 3_000;
/**
 * How long a daemon has to acknowledge a request (`HERMES_DAEMON_ACK_MS`). Its main thread only
 * reads the line and writes the acknowledgement (the runtimes answer in worker threads), which
 * takes well under a millisecond when it runs at all.
 */
export const ACK_MS = 500;

export function ackMs(): number {
  const set = Number(process.env.HERMES_DAEMON_ACK_MS);
  return Number.isFinite(set) && set > 0 ? set : ACK_MS;
}

export type Unanswered = {
  why: string;
  /** `gone`: nothing listens; `noAck`: taken but not acknowledged; `failed`: anything else. */
  kind: 'gone' | 'noAck' | 'failed';
};

/**
 * One request, its acknowledgement within ackMs(), and its answer line by what is left of the
 * deadline less FALLBACK_RESERVE_MS (the request says when, so the daemon does not start it
 * later). Without an answer the connection is dropped, and whatever comes after with it: an
 * answer past the bound is never printed beside the in-process one. With one, the daemon closes
 * it; the client only stops waiting for that (`release`, which saves the ~0.7 ms a close takes
 * here). The client does not half-close its side: the daemon takes that as the client gone.
 */
export function ask(
  path: string,
  request: DaemonRequest,
  deadline: number,
): Promise<DaemonAnswer | Unanswered> {
  const remaining = deadline - Date.now();
  const boundMs = remaining - Math.min(FALLBACK_RESERVE_MS, remaining / 2);
  const acknowledgeMs = Math.min(ackMs(), boundMs);
  const line = `${JSON.stringify({ ...request, deadline: Date.now() + boundMs })}\n`;
  return new Promise((settle) => {
    // Bytes, split into lines before they are decoded: a newline is never part of another
    // character in UTF-8, so a character split between two reads is decoded whole.
    let received = Buffer.alloc(0);
    let acknowledged = false;
    let done = false;
    const finish = (result: DaemonAnswer | Unanswered) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(ackTimer);
      if ('exitCode' in result) connection.release();
      else connection.destroy();
      settle(result);
    };
    const timer = setTimeout(
      () => finish({ why: `no answer within ${Math.round(boundMs)} ms`, kind: 'failed' }),
      Math.max(0, boundMs),
    );
    // With less time left than a daemon has to acknowledge, silence says nothing about it.
    const silence = acknowledgeMs < ackMs() ? 'failed' : 'noAck';
    // Decided after the loop's next poll: an acknowledgement that came while this process was
    // not running (a loaded machine) is read first, not taken for silence.
    const ackTimer = setTimeout(
      () =>
        setImmediate(() => {
          if (!acknowledged)
            finish({ why: `no acknowledgement within ${acknowledgeMs} ms`, kind: silence });
        }),
      Math.max(0, acknowledgeMs),
    );
    const connection = connectTo(path, {
      connect: () => connection.write(line),
      data(chunk) {
        received = Buffer.concat([received, chunk]);
        for (let end = received.indexOf(10); end >= 0 && !done; end = received.indexOf(10)) {
          const first = received.subarray(0, end).toString('utf8');
          received = received.subarray(end + 1);
          if (acknowledged || first !== DAEMON_ACK) return finish(parseAnswer(first));
          acknowledged = true;
          clearTimeout(ackTimer);
        }
      },
      end: () =>
        finish(
          received.length === 0
            ? { why: 'the daemon closed without answering', kind: 'failed' }
            : parseAnswer(received.toString('utf8')),
        ),
      error(code, message) {
        // No socket, or one no daemon listens on any more: a daemon is started.
        const gone = code === 'ENOENT' || code === 'ECONNREFUSED';
        finish({ why: `the daemon cannot be reached: ${message}`, kind: gone ? 'gone' : 'failed' });
      },
    });
  });
}

function parseAnswer(line: string): DaemonAnswer | Unanswered {
  const malformed: Unanswered = {
    why: 'the daemon answered something that is not an answer',
    kind: 'failed',
  };
  let answer: Partial<DaemonAnswer>;
  try {
    answer = JSON.parse(line) as Partial<DaemonAnswer>;
  } catch {
    return malformed;
  }
  const ok =
    answer !== null &&
    typeof answer === 'object' &&
    answer.v === DAEMON_PROTOCOL &&
    typeof answer.stdout === 'string' &&
    typeof answer.stderr === 'string' &&
    Number.isInteger(answer.exitCode) &&
    (answer.exitCode as number) >= 0 &&
    (answer.exitCode as number) <= 255;
  return ok ? (answer as DaemonAnswer) : malformed;
}
