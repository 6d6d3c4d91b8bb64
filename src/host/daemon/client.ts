/**
 * The fast path of `hermes hook <agent>` (bin/hermes.js): the event read from stdin is sent to
 * the user's warm hook daemon, and its answer printed, without loading the framework. Every way
 * this can fail — no daemon, a socket folder others could write to, a refused connection, an
 * answer that is not one, or none in time — returns a fallback, and the caller answers the same
 * event in-process: never a silent allow.
 *
 * Everything here is paid on every tool call of the agent, so it loads as little as it can: Node's
 * built-ins and the protocol only (.dependency-cruiser.cjs), no `process.stdout`/`stdin` streams
 * and no `performance` global (each costs a millisecond or two to set up), `child_process` only
 * to start a daemon (BENCHMARKS.md, "Hook call").
 */
import { existsSync, readFileSync, writeSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { hookDeadlineMs } from '../hook-deadline.js';
import { daemonDirProblem } from './daemon-dir.js';
import {
  DAEMON_PROTOCOL,
  type DaemonAnswer,
  type DaemonRequest,
  daemonDir,
  daemonKey,
  daemonSocketPath,
} from './protocol.js';

/** What is kept of the deadline for the in-process answer when the daemon does not answer. */
const FALLBACK_RESERVE_MS = 3_000;

/** The daemon did not answer; the event is answered in-process within `deadlineMs`. */
export interface Fallback {
  answered: false;
  why: string;
  /** The event, or why stdin could not be read (the in-process path answers that as today). */
  input: string | Error;
  deadlineMs: number;
  /** No daemon was there: the caller starts one once it has answered. */
  startDaemon: boolean;
}

export type ClientOutcome = { answered: true; exitCode: number } | Fallback;

/**
 * One hook event through the daemon: stdin read, the daemon asked, its answer printed. `root` is
 * the package's folder (its package.json gives the framework version of the daemon's key).
 */
export async function answerThroughDaemon(agent: string, root: string): Promise<ClientOutcome> {
  const started = Date.now();
  const deadline = hookDeadlineMs();
  const input = await readStdin();
  const fallback = (why: string, startDaemon = false): Fallback => ({
    answered: false,
    why,
    input,
    deadlineMs: Math.max(1, deadline - (Date.now() - started)),
    startDaemon,
  });
  if (typeof input !== 'string') return fallback('stdin could not be read');
  try {
    return await attempt(agent, input, root, deadline - (Date.now() - started), fallback);
  } catch (error) {
    // A fault of this client is not a reason to leave the event unanswered.
    return fallback(`the daemon client failed: ${(error as Error)?.message ?? String(error)}`);
  }
}

async function attempt(
  agent: string,
  input: string,
  root: string,
  remainingMs: number,
  fallback: (why: string, startDaemon?: boolean) => Fallback,
): Promise<ClientOutcome> {
  if (typeof process.getuid !== 'function') return fallback('no Unix sockets here');
  const dir = daemonDir();
  if (!existsSync(dir)) return fallback('no daemon', true);
  const folder = daemonDirProblem(dir);
  if (folder !== undefined) return fallback(folder);

  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch (error) {
    return fallback(`the package's version cannot be read: ${(error as Error).message}`);
  }
  const socket = daemonSocketPath(daemonKey(hermesHome(), version));
  const request: DaemonRequest = {
    v: DAEMON_PROTOCOL,
    agent,
    stdin: input,
    cwd: process.cwd(),
    // The event is answered with this environment, as it would be in-process (protocol.ts).
    env: process.env as Record<string, string>,
  };
  const bound = remainingMs - Math.min(FALLBACK_RESERVE_MS, remainingMs / 2);
  const reply = await ask(socket, request, bound);
  if (!('exitCode' in reply)) return fallback(reply.why, reply.startDaemon);
  print(1, reply.stdout);
  print(2, reply.stderr);
  return { answered: true, exitCode: reply.exitCode };
}

/**
 * Starts the daemon for this home, version and environment in the background, detached and
 * with no stdio of the agent's (an agent waits for its hook's pipes to close). In the hook's
 * working folder, so a relative `$HERMES_HOME` names the same home. Nothing waits for it: if it
 * cannot start, the next call answers in-process again.
 */
export function startDaemon(bin: string): void {
  try {
    const { spawn } = process.getBuiltinModule('node:child_process');
    spawn(process.execPath, [bin, 'daemon', 'run'], {
      detached: true,
      stdio: 'ignore',
      env: process.env,
    })
      .on('error', () => {})
      .unref();
  } catch {
    // Nothing to do: this call has its answer, and the next one tries again.
  }
}

/** Straight to the file descriptor; a reader that has gone (EPIPE) is not an error here. */
function print(fd: 1 | 2, text: string): void {
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      // A non-blocking pipe that is full: the stream waits for it (and is flushed before exit).
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN')
        (fd === 1 ? process.stdout : process.stderr).write(rest);
      return;
    }
  }
}

/** `$HERMES_HOME` as src/config/locations.ts resolves it. */
function hermesHome(): string {
  const home = process.env.HERMES_HOME ?? join(homedir(), '.hermes');
  if (home === '~') return homedir();
  return resolve(home.startsWith('~/') ? join(homedir(), home.slice(2)) : home);
}

/** The whole of stdin; an error if it cannot be read, which the in-process path reports. */
async function readStdin(): Promise<string | Error> {
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    // A non-blocking stdin cannot be read in one go: it is read as a stream.
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return error as Error;
  }
  try {
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    return text;
  } catch (error) {
    return error as Error;
  }
}

type Unanswered = { why: string; startDaemon: boolean };

/**
 * One request and its answer line, within `boundMs`. Without an answer the connection is
 * dropped, and whatever comes after with it: an answer past the bound is never printed beside
 * the in-process one. With one, the daemon closes it; the client only stops waiting for that
 * (`unref`, which saves the ~0.7 ms `destroy` takes here). The client does not half-close its
 * side: the daemon answers on an open one.
 */
function ask(
  path: string,
  request: DaemonRequest,
  boundMs: number,
): Promise<DaemonAnswer | Unanswered> {
  return new Promise((settle) => {
    let received = '';
    let done = false;
    const finish = (result: DaemonAnswer | Unanswered) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if ('exitCode' in result) socket.unref();
      else socket.destroy();
      settle(result);
    };
    const timer = setTimeout(
      () => finish({ why: `no answer within ${Math.round(boundMs)} ms`, startDaemon: false }),
      Math.max(0, boundMs),
    );
    const socket = createConnection(path);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end >= 0) finish(parseAnswer(received.slice(0, end)));
    });
    socket.on('end', () => finish(parseAnswer(received)));
    socket.on('close', () =>
      finish({ why: 'the daemon closed without answering', startDaemon: false }),
    );
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // No socket, or one no daemon listens on any more: a daemon is started for the next call.
      const gone = error.code === 'ENOENT' || error.code === 'ECONNREFUSED';
      finish({ why: `the daemon cannot be reached: ${error.message}`, startDaemon: gone });
    });
  });
}

function parseAnswer(line: string): DaemonAnswer | Unanswered {
  const malformed = {
    why: 'the daemon answered something that is not an answer',
    startDaemon: false,
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
