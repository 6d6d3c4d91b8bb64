/**
 * The fast path of `hermes hook <agent>` (bin/hermes.js): the event read from stdin is sent to
 * the user's warm hook daemon, and its answer printed, without loading the framework. Every way
 * this can fail — no daemon, a socket folder others could write to, something else at the socket
 * path, a refused connection, no acknowledgement, an answer that is not one, or none in time —
 * returns a fallback, and the caller answers the same event in-process: never a silent allow.
 *
 * A daemon that takes the request but does not acknowledge it at once (stopped, or its main
 * thread stuck) is marked as not serving (markers.ts), so later calls skip it without waiting,
 * and one replacement is started, which takes over its socket path; the in-process answer keeps
 * nearly all of the deadline. With no daemon serving, one hook starts one (a lock per key keeps
 * it to one), and hooks arriving meanwhile wait a little for it rather than each loading the
 * framework.
 *
 * Everything here is paid on every tool call of the agent, so it loads as little as it can: Node's
 * built-ins and the protocol's leaves only (.dependency-cruiser.cjs), no `process.stdout`/`stdin`
 * streams and no `performance` global (each costs a millisecond or two to set up), no `node:net`
 * where the socket's handle can be had (unix-connection.ts), `child_process` only to start a
 * daemon (BENCHMARKS.md, "Hook call").
 */
import { existsSync, readFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { hookDeadlineMs } from '../hook-deadline.js';
import { ackMs, ask } from './ask.js';
import { daemonDirProblem, ensureDaemonDir } from './daemon-dir.js';
import { startDaemon } from './daemon-start.js';
import { atPath, markedStuck, markStuck, notASocket, starting } from './markers.js';
import {
  DAEMON_PROTOCOL,
  type DaemonAnswer,
  type DaemonRequest,
  daemonDir,
  daemonKey,
  daemonSocketPath,
  isSessionStart,
} from './protocol.js';

/**
 * How long a hook waits, at most, for the daemon another hook is starting before answering
 * in-process (and never more than a quarter of what is left of its deadline): about what a
 * daemon takes to start listening on a loaded machine.
 */
export const START_WAIT_MS = 2_500;
/** How often a waiting hook looks for the daemon being started. */
const POLL_MS = 50;

/** The daemon did not answer; the event is answered in-process within `deadlineMs`. */
export interface Fallback {
  answered: false;
  why: string;
  /** What the user should know (something to fix, a daemon replaced): the caller prints it. */
  notice?: string;
  /** The event, or why stdin could not be read (the in-process path answers that as today). */
  input: string | Error;
  deadlineMs: number;
}

export type ClientOutcome = { answered: true; exitCode: number } | Fallback;

type FallbackOf = (why: string, notice?: string) => Fallback;

/**
 * One hook event through the daemon: stdin read, the daemon asked, its answer printed. `root` is
 * the package's folder (its package.json gives the framework version of the daemon's key), `bin`
 * the command line that starts a daemon (`bin daemon run`).
 */
export async function answerThroughDaemon(
  agent: string,
  root: string,
  bin: string,
): Promise<ClientOutcome> {
  const deadline = Date.now() + hookDeadlineMs();
  const input = await readStdin();
  const fallback: FallbackOf = (why, notice) => ({
    answered: false,
    why,
    ...(notice === undefined ? {} : { notice }),
    input,
    deadlineMs: Math.max(1, deadline - Date.now()),
  });
  if (typeof input !== 'string') return fallback('stdin could not be read');
  try {
    return await attempt(agent, input, root, bin, deadline, fallback);
  } catch (error) {
    // A fault of this client is not a reason to leave the event unanswered.
    return fallback(`the daemon client failed: ${(error as Error)?.message ?? String(error)}`);
  }
}

async function attempt(
  agent: string,
  input: string,
  root: string,
  bin: string,
  deadline: number,
  fallback: FallbackOf,
): Promise<ClientOutcome> {
  if (typeof process.getuid !== 'function') return fallback('no Unix sockets here');
  // Relative, they would be read in the hook's folder, the project's (hook-process.ts refuses
  // such a home in-process; a socket folder there is left to no daemon).
  for (const name of ['HERMES_HOME', 'HERMES_DAEMON_DIR']) {
    const value = process.env[name];
    if (value !== undefined && !isAbsolute(value) && value !== '~' && !value.startsWith('~/'))
      return fallback(`${name} is not an absolute path`);
  }
  const dir = daemonDir();
  // Made as the daemon makes it: the start lock lives in it (markers.ts).
  if (!existsSync(dir)) ensureDaemonDir(dir);
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
  const answered = (answer: DaemonAnswer): ClientOutcome => {
    print(1, answer.stdout);
    print(2, answer.stderr);
    return { answered: true, exitCode: answer.exitCode };
  };

  // A session's start decides nothing. Where no daemon serves it is answered here, with nothing,
  // and a daemon this hook starts is handed it, to load the session's runtime meanwhile (warm.ts).
  const startsSession = isSessionStart(agent, input);
  const found = atPath(socket);
  if (found.kind === 'other') {
    // Nothing is started: a daemon could not listen there either (server.ts refuses).
    const notice = notASocket(socket, found.what);
    return fallback(notice, notice);
  }
  // A socket marked not serving is skipped at once: its replacement is started, or waited for.
  if (found.kind === 'socket' && !markedStuck(socket, found.id)) {
    const reply = await ask(socket, request, deadline);
    if ('exitCode' in reply) return answered(reply);
    if (reply.kind === 'noAck') {
      markStuck(socket, found.id);
      const replaced = startDaemon(socket, bin, found) ? ' (a new daemon is started)' : '';
      const notice = `the hook daemon at ${socket} did not acknowledge the call within ${ackMs()} ms: it is not serving, and is skipped from now on${replaced}; this call is answered in-process`;
      return fallback(reply.why, notice);
    }
    // Answered badly, or late: a daemon that serves, whose answer this one was not.
    if (reply.kind === 'failed') return fallback(reply.why);
    // Gone (a dead daemon's socket): started again below.
  }
  if (startDaemon(socket, bin, found, startsSession ? request : undefined))
    return startsSession ? NOTHING : fallback('no daemon serves: one is started');
  // Another hook is starting it: this session's first prompt waits for it there (waitForStart).
  if (startsSession && starting(socket)) return NOTHING;
  return waitForStart(socket, request, deadline, answered, fallback);
}

/**
 * Another hook is starting the daemon: waits for it to serve (its socket there, not marked, and
 * acknowledging), within START_WAIT_MS and a quarter of what is left of the deadline; answers
 * in-process when it does not, or when the start has ended without a daemon.
 */
async function waitForStart(
  socket: string,
  request: DaemonRequest,
  deadline: number,
  answered: (answer: DaemonAnswer) => ClientOutcome,
  fallback: FallbackOf,
): Promise<ClientOutcome> {
  const waitMs = Math.min(START_WAIT_MS, (deadline - Date.now()) / 4);
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    await new Promise((tick) => setTimeout(tick, POLL_MS));
    const inProgress = starting(socket);
    const found = atPath(socket);
    if (found.kind === 'socket' && !markedStuck(socket, found.id)) {
      const reply = await ask(socket, request, deadline);
      if ('exitCode' in reply) return answered(reply);
      if (reply.kind === 'noAck') markStuck(socket, found.id);
      if (reply.kind !== 'gone') return fallback(reply.why);
    }
    if (!inProgress) return fallback('the daemon being started did not come up');
  }
  return fallback(`no daemon served within ${Math.round(waitMs)} ms of waiting for one to start`);
}

/** The answer to a session's start where the client answers it: nothing (QUIET_SESSION_START). */
const NOTHING: ClientOutcome = { answered: true, exitCode: 0 };

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
