import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { hermesHome } from '../../config/locations.js';
import { type Logger, stderrLogger } from '../../log/logger.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../command-hook/agents.js';
import { failed, render } from '../command-hook/answers.js';
import { printed } from '../command-hook/hook-process.js';
import { runCommandHook } from '../command-hook/run-hook.js';
import type { RuntimeSource } from '../command-hook/runtime-source.js';
import { hookDeadlineMs } from '../hook-deadline.js';
import { ensureDaemonDir } from './daemon-dir.js';
import {
  DAEMON_PROTOCOL,
  type DaemonAnswer,
  type DaemonStatus,
  daemonDir,
  daemonSocketPath,
} from './protocol.js';
import { MAX_RUNTIMES, RuntimeWorkers } from './runtime-workers.js';

/** How long the daemon waits without an event before it exits (`HERMES_DAEMON_IDLE_MS`). */
export const DAEMON_IDLE_MS = 10 * 60_000;
/** A request line longer than this is refused (the event is answered as unreadable). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** How long a client may take to send its request line. */
const LINE_TIMEOUT_MS = 10_000;

export interface HookDaemonOptions {
  /** `$HERMES_HOME` (resolved here as loadRuntime resolves it). */
  home?: string;
  /** protocol.ts `daemonKey`: names the socket. */
  key: string;
  idleMs?: number;
  /** The daemon's own log: what no event is being answered for. Default: stderr. */
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
}

export interface HookDaemon {
  socket: string;
  /** Settles once the daemon has stopped: socket removed, runtimes closed. */
  closed: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The hook daemon (README, The hook daemon): answers `hermes hook <agent>` events sent over its
 * socket with the same code the hook process runs (runCommandHook, the same deadline), from
 * runtimes it keeps per project and hook environment, each in a worker thread
 * (runtime-workers.ts). Events of one session are answered in order; others at once. Resolves
 * undefined, without listening, when a live daemon already answers on the socket. Exits on its
 * own after `idleMs` without an event.
 */
export async function startHookDaemon(options: HookDaemonOptions): Promise<HookDaemon | undefined> {
  const env = options.env ?? process.env;
  const home = hermesHome(options.home);
  const idleMs = options.idleMs ?? idleFromEnv(env);
  const own = options.logger ?? stderrLogger;
  ensureDaemonDir(daemonDir(env));
  const socket = daemonSocketPath(options.key, env);
  if (await answers(socket)) return undefined;

  const runtimes = new RuntimeWorkers({ home, log: own, maxRuntimes: maxFromEnv(env) });
  const startedAt = new Date();
  const queues = new Map<string, Promise<unknown>>();
  let requests = 0;
  let inFlight = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const status = (): DaemonStatus => ({
    v: DAEMON_PROTOCOL,
    pid: process.pid,
    socket,
    home,
    startedAt: startedAt.toISOString(),
    uptimeMs: Date.now() - startedAt.getTime(),
    projects: runtimes.projects,
    runtimes: runtimes.size,
    rss: process.memoryUsage.rss(),
    requests,
  });

  const answerEvent = async (
    agent: CommandHookAgent,
    stdin: string,
    judged: Judged,
    env: Record<string, string>,
  ): Promise<DaemonAnswer> => {
    const answer =
      judged.event === undefined
        ? // Not an event at all: answered as the hook process answers it, with no runtime.
          printed(await runCommandHook(agent, stdin, { home, logger: own, runtimes: NONE }))
        : await runtimes.answer({
            agent,
            eventName: judged.name,
            stdin,
            cwd: judged.cwd,
            env,
            deadlineMs: hookDeadlineMs(),
          });
    requests++;
    return { v: DAEMON_PROTOCOL, ...answer };
  };

  const answerLine = async (line: string): Promise<object> => {
    const request = parse(line);
    if (request === undefined) return unreadable(line, 'the request is not a JSON object');
    if (request.control === 'status') return status();
    if (request.control === 'stop') {
      setImmediate(() => void stop());
      return status();
    }
    const agent =
      typeof request.agent === 'string' && Object.hasOwn(COMMAND_HOOK_AGENTS, request.agent)
        ? COMMAND_HOOK_AGENTS[request.agent]
        : undefined;
    if (agent === undefined) return unreadable(line, 'the request names no known agent');
    if (
      request.v !== DAEMON_PROTOCOL ||
      typeof request.stdin !== 'string' ||
      !isEnvironment(request.env)
    ) {
      const why = `the daemon speaks protocol ${DAEMON_PROTOCOL}; this request is not one of it`;
      return { v: DAEMON_PROTOCOL, ...printed(render(failed(agent, undefined, why))) };
    }
    const env = request.env;
    const cwd = typeof request.cwd === 'string' ? request.cwd : undefined;
    const judged = judgedIn(request.stdin, cwd);
    const { stdin, session } = judged;
    return inOrder(queues, session && `${agent.name}\0${session}`, () =>
      answerEvent(agent, stdin, judged, env),
    );
  };

  const handle = (connection: Socket) => {
    inFlight++;
    clearTimeout(idle);
    connection.on('error', () => {});
    // Counted until the connection is gone, whether it was answered or left.
    connection.once('close', () => {
      inFlight--;
      armIdle();
    });
    // A client that connects and says nothing is dropped (the answer itself may take longer).
    connection.setTimeout(LINE_TIMEOUT_MS, () => connection.destroy());
    readLine(connection, (line, tooLong) => {
      connection.setTimeout(0);
      const answered = tooLong
        ? Promise.resolve(unreadable(line, `the request is over ${MAX_REQUEST_BYTES} bytes`))
        : answerLine(line);
      void answered
        .catch((error: unknown) => unreadable(line, `unexpected error: ${String(error)}`))
        .then((answer) => {
          if (!connection.destroyed) connection.end(`${JSON.stringify(answer)}\n`);
        });
    });
  };

  const armIdle = () => {
    clearTimeout(idle);
    if (inFlight === 0 && stopping === undefined) idle = setTimeout(() => void stop(), idleMs);
  };

  const server = createServer({ allowHalfOpen: true }, handle);
  const listened = await listenAt(server, socket);
  if (listened === undefined) return undefined;

  const stop = () => {
    stopping ??= (async () => {
      clearTimeout(idle);
      clearInterval(watchPath);
      server.close();
      // Only our own: a daemon that started since may listen at this path now.
      if (inodeOf(socket) === listened) rmSync(socket, { force: true });
      await runtimes.closeAll();
      resolveClosed();
    })();
    return stopping;
  };
  // Another daemon that raced this one to the path took it: this one gets no events, so it goes.
  const watchPath = setInterval(() => {
    if (inodeOf(socket) !== listened) void stop();
  }, 1_000);
  watchPath.unref();
  armIdle();
  return { socket, closed, stop };
}

/**
 * Listens at a path of its own, made readable by this user only, then renames it onto `socket`:
 * no other user ever sees the socket open, and a stale socket of a dead daemon is replaced in one
 * step. Undefined (and nothing listening) when a live daemon answered there meanwhile; else the
 * socket's inode, by which the daemon knows the path is still its own.
 */
async function listenAt(server: Server, socket: string): Promise<number | undefined> {
  const own = `${socket}.${process.pid}`;
  rmSync(own, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(own, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(own, 0o600);
  if (await answers(socket)) {
    await new Promise((resolve) => server.close(resolve));
    rmSync(own, { force: true });
    return undefined;
  }
  renameSync(own, socket);
  return inodeOf(socket);
}

/** Whether a daemon answers at `socket` (a connection is accepted). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    const done = (live: boolean) => {
      probe.destroy();
      resolve(live);
    };
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
    probe.setTimeout(1_000, () => done(false));
  });
}

function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** Calls `done` once with the first line (without its `\n`), or all that came before the end. */
function readLine(connection: Socket, done: (line: string, tooLong: boolean) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  const finish = (tooLong: boolean) => {
    if (finished) return;
    finished = true;
    connection.pause();
    done(Buffer.concat(chunks).toString('utf8'), tooLong);
  };
  connection.on('data', (chunk: Buffer) => {
    if (finished) return;
    const end = chunk.indexOf(10);
    chunks.push(end === -1 ? chunk : chunk.subarray(0, end));
    length += end === -1 ? chunk.length : end;
    if (length > MAX_REQUEST_BYTES) finish(true);
    else if (end !== -1) finish(false);
  });
  connection.on('end', () => finish(false));
}

type RequestLine = Record<string, unknown>;

function parse(line: string): RequestLine | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as RequestLine)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A request that cannot be read: answered as the hook process answers an event it cannot read
 * (a refusal), for the agent the line names if it names one; else exit 2 with the reason, which
 * both agents take as a refusal of a tool call.
 */
function unreadable(line: string, why: string): DaemonAnswer {
  const named = /"agent"\s*:\s*"([a-z-]+)"/.exec(line.slice(0, 200))?.[1];
  const agent =
    named && Object.hasOwn(COMMAND_HOOK_AGENTS, named) ? COMMAND_HOOK_AGENTS[named] : undefined;
  if (agent !== undefined) {
    return { v: DAEMON_PROTOCOL, ...printed(render(failed(agent, undefined, why))) };
  }
  return { v: DAEMON_PROTOCOL, stdout: '', stderr: `hermes daemon: ${why}\n`, exitCode: 2 };
}

interface Judged {
  stdin: string;
  /** Undefined when the input is no JSON object (no runtime is needed to refuse it). */
  event?: RequestLine;
  name?: string;
  session?: string;
  /** The folder whose project answers it. */
  cwd: string;
}

/**
 * The event as the hook process would judge it: one without a `cwd` is judged in the client's
 * working folder (where the hook process would run); its name, and its session, for the order of
 * events.
 */
function judgedIn(stdin: string, cwd: string | undefined): Judged {
  const event = parse(stdin);
  const here = cwd ?? process.cwd();
  if (event === undefined) return { stdin, cwd: here };
  const session = typeof event.session_id === 'string' ? event.session_id : undefined;
  const name = typeof event.hook_event_name === 'string' ? event.hook_event_name : undefined;
  const judged = { event, session, name };
  if (typeof event.cwd === 'string') return { ...judged, stdin, cwd: event.cwd };
  if (cwd === undefined) return { ...judged, stdin, cwd: here };
  return { ...judged, stdin: JSON.stringify({ ...event, cwd }), cwd };
}

/** The client's environment: names to strings. */
function isEnvironment(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === 'string');
}

/** What answers an event that is no event: runCommandHook refuses it before asking for one. */
const NONE: RuntimeSource = {
  acquire: () => Promise.reject(new Error('no runtime for an input that is not a hook event')),
  release: async () => {},
};

/** Runs `work` after the work queued under `key` before it (at once without a key). */
function inOrder<T>(
  queues: Map<string, Promise<unknown>>,
  key: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (key === undefined) return work();
  const run = (queues.get(key) ?? Promise.resolve()).then(work, work);
  const tail = run.then(
    () => {},
    () => {},
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

function idleFromEnv(env: NodeJS.ProcessEnv): number {
  const set = Number(env.HERMES_DAEMON_IDLE_MS);
  return Number.isFinite(set) && set > 0 ? set : DAEMON_IDLE_MS;
}

/** `HERMES_DAEMON_MAX_RUNTIMES`: how many runtimes (worker threads) are kept at most. */
function maxFromEnv(env: NodeJS.ProcessEnv): number {
  const set = Number(env.HERMES_DAEMON_MAX_RUNTIMES);
  return Number.isInteger(set) && set > 0 ? set : MAX_RUNTIMES;
}
