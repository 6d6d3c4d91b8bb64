import { rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { hermesHome } from '../../config/locations.js';
import { type Logger, stderrLogger } from '../../log/logger.js';
import { packageVersion } from '../../package-root.js';
import type { CommandHookAgent } from '../command-hook/agents.js';
import { engineEventName, printed } from '../command-hook/answers.js';
import { hookDeadlineMs } from '../hook-deadline.js';
import { DaemonDirError, ensureDaemonDir } from './daemon-dir.js';
import {
  atPath,
  endStart,
  markedStuck,
  notASocket,
  type SocketId,
  unmarkStuck,
} from './markers.js';
import {
  DAEMON_ACK,
  DAEMON_PROTOCOL,
  type DaemonAnswer,
  type DaemonStatus,
  daemonDir,
  daemonSocketPath,
  keyedDigests,
} from './protocol.js';
import {
  type EventRequest,
  eventRequest,
  inOrder,
  type Judged,
  NONE,
  parse,
  unreadable,
} from './requests.js';
import { MAX_RSS_MB, RUNTIME_IDLE_MS } from './runtime-eviction.js';
import { MAX_RUNTIMES, RuntimeWorkers } from './runtime-workers.js';
import { answers, listenAt, MAX_REQUEST_BYTES, readLine } from './socket-io.js';
import { sessionEnv, startsSession } from './warm.js';

/** How long the daemon waits without an event before it exits (`HERMES_DAEMON_IDLE_MS`). */
export const DAEMON_IDLE_MS = 10 * 60_000;
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
  /**
   * A request line carrying a session's start, handed over by the hook that started this daemon
   * (client.ts): its runtime is loaded once the daemon listens (warm.ts). Any other line is left.
   */
  warm?: string;
}

export interface HookDaemon {
  socket: string;
  /** Settles once the daemon has stopped: socket removed, runtimes closed. */
  closed: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The hook daemon (docs/command-hooks.md, The hook daemon): answers `hermes hook <agent>` events sent over its
 * socket with the same code the hook process runs (runCommandHook, the same deadline), from
 * runtimes it keeps per project and hook environment, each in a worker thread
 * (runtime-workers.ts). Events of one session are answered in order; others at once; each
 * request acknowledged at once, and none started whose client has gone (protocol.ts). Resolves
 * undefined, without listening, when a live daemon already answers on the socket (one a client
 * marked as not serving is replaced: markers.ts); throws a DaemonDirError, having made nothing,
 * when something other than a socket is at its path. Exits on its own after `idleMs` without an
 * event, and once its path is another daemon's or marked.
 */
export async function startHookDaemon(options: HookDaemonOptions): Promise<HookDaemon | undefined> {
  const env = options.env ?? process.env;
  const home = hermesHome(options.home);
  const idleMs = options.idleMs ?? idleFromEnv(env);
  const own = options.logger ?? stderrLogger;
  ensureDaemonDir(daemonDir(env));
  const socket = daemonSocketPath(options.key, env);
  /** Whether another daemon serves at the path: it takes connections, and no client marked it. */
  const serving = async (): Promise<boolean> => {
    const found = atPath(socket);
    // Not ours to replace (clients report it too: client.ts). Checked again just before taking
    // the path, which renaming would otherwise do to a file.
    if (found.kind === 'other') throw new DaemonDirError(notASocket(socket, found.what));
    return found.kind === 'socket' && !markedStuck(socket, found.id) && (await answers(socket));
  };
  if (await serving()) {
    // The start that named this daemon (markers.ts) has its daemon: the one serving.
    endStart(socket, process.pid);
    return undefined;
  }

  const runtimes = new RuntimeWorkers({
    home,
    log: own,
    maxRuntimes: maxFromEnv(env),
    limits: {
      idleMs: positiveFromEnv(env.HERMES_DAEMON_RUNTIME_IDLE_MS, RUNTIME_IDLE_MS),
      maxRssBytes: positiveFromEnv(env.HERMES_DAEMON_MAX_MB, MAX_RSS_MB) * 1_048_576,
    },
  });
  const startedAt = new Date();
  const queues = new Map<string, Promise<unknown>>();
  let requests = 0;
  let lastEvent = Date.now(); // Idleness counts from it: a status asked is no use.
  let inFlight = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  // What the socket's name was made from, told by status (a terminal's other environment).
  const node = `${process.execPath} ${process.version}`;
  const made = { version: packageVersion(), node, keyed: keyedDigests(env) };
  const status = (): DaemonStatus => ({
    v: DAEMON_PROTOCOL,
    pid: process.pid,
    socket,
    home,
    startedAt: startedAt.toISOString(),
    uptimeMs: Date.now() - startedAt.getTime(),
    ...runtimes.status,
    rss: process.memoryUsage.rss(),
    requests,
    made,
  });

  /** Undefined when no runtime took it in time, or its client went: its client answers it. */
  const answerEvent = async (
    agent: CommandHookAgent,
    stdin: string,
    judged: Judged,
    env: Record<string, string>,
    until: number,
    gone: () => boolean,
  ): Promise<DaemonAnswer | undefined> => {
    const answer =
      judged.event === undefined || startsSession(agent, judged)
        ? // Not an event at all, or a session's start: answered as the hook process answers it,
          // with no runtime (warm.ts).
          printed(await answerWithoutRuntime(agent, stdin, { home, logger: own }))
        : await runtimes.answer({
            agent,
            eventName: engineEventName(agent, judged.event),
            stdin,
            cwd: judged.cwd,
            env,
            deadlineMs: hookDeadlineMs(),
            until,
            gone,
          });
    if (answer === undefined) return undefined;
    requests++;
    lastEvent = Date.now();
    return { v: DAEMON_PROTOCOL, ...answer };
  };

  /**
   * Whether the socket path is still this daemon's and no client has marked it as not serving
   * (client.ts, when it did not acknowledge in time: stopped, or its thread stuck). Once either
   * is untrue, clients have moved on to a replacement, and this daemon goes.
   */
  const ownPath = (): boolean => {
    const found = atPath(socket);
    return found.kind === 'socket' && found.id.ino === mine.ino && !markedStuck(socket, found.id);
  };

  /**
   * Why an event must not be started now, if it must not: its client has gone (it gave up, or
   * found this daemon not serving — say, stopped with a backlog of requests), its deadline has
   * passed, or this daemon is going. Its client has answered it in-process, or will: deciding it
   * here too would decide one call twice.
   */
  const notToStart = async (deadline: number, gone: () => boolean): Promise<string | undefined> => {
    // The end of a connection read with its line is seen once this turn of the loop is over.
    await new Promise((resolve) => setImmediate(resolve));
    if (stopping !== undefined) return 'the daemon is stopping';
    if (!ownPath()) {
      void stop();
      return 'the daemon was marked as not serving, or replaced';
    }
    if (gone()) return 'its client has gone';
    if (Date.now() > deadline) return "its client's deadline has passed";
    return undefined;
  };

  /**
   * What a request line asks: a hook event (its agent, the event as judged, its hook's
   * environment and deadline), or else the answer to give it (a control line's, or a refusal).
   */
  const readRequest = (line: string): EventRequest | { answer: object } => {
    const request = parse(line);
    if (request === undefined)
      return { answer: unreadable(line, 'the request is not a JSON object') };
    if (request.control === 'status') return { answer: status() };
    if (request.control === 'stop') {
      setImmediate(() => void stop());
      return { answer: status() };
    }
    return eventRequest(request, line, env, own);
  };

  /** Starts loading the runtime of a session that starts (warm.ts), unless the daemon is going. */
  const warm = ({ agent, judged, asked }: EventRequest) => {
    if (stopping !== undefined) return;
    const event = { agent, stdin: judged.stdin, cwd: judged.cwd, env: sessionEnv(agent, asked) };
    runtimes.warm(event).catch((error: unknown) => {
      own.warn(`hermes daemon: a session's runtime was not loaded ahead: ${String(error)}`);
    });
  };

  const answerLine = async (line: string, gone: () => boolean): Promise<object | undefined> => {
    const read = readRequest(line);
    if ('answer' in read) return read.answer;
    const { agent, judged, asked, deadline } = read;
    const { stdin, session } = judged;
    return inOrder(queues, session && `${agent.name}\0${session}`, async () => {
      if (startsSession(agent, judged)) {
        warm(read);
        return answerEvent(agent, stdin, judged, asked, deadline, gone);
      }
      const why = await notToStart(deadline, gone);
      const answer =
        why === undefined
          ? await answerEvent(agent, stdin, judged, asked, deadline, gone)
          : undefined;
      if (answer === undefined) {
        const reason =
          why ?? 'no runtime took it in time (every one busy or stuck), or its client went';
        own.info(`hermes daemon: a ${agent.name} ${judged.name ?? 'event'} not started: ${reason}`);
      }
      return answer;
    });
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
    const reading = readLine(connection, (line, tooLong) => {
      connection.setTimeout(0);
      // At once, from this thread, whatever the runtimes are doing: the client learns that this
      // daemon serves (protocol.ts).
      connection.write(`${DAEMON_ACK}\n`);
      const gone = () => reading.ended() || connection.destroyed;
      const answered = tooLong
        ? Promise.resolve(unreadable(line, `the request is over ${MAX_REQUEST_BYTES} bytes`))
        : answerLine(line, gone);
      void answered
        .catch((error: unknown) => unreadable(line, `unexpected error: ${String(error)}`))
        .then((answer) => {
          // Not started: no answer, so nothing can be taken for one.
          if (answer === undefined) connection.destroy();
          else if (!connection.destroyed) connection.end(`${JSON.stringify(answer)}\n`);
        });
    });
  };

  const armIdle = () => {
    clearTimeout(idle);
    if (inFlight === 0 && stopping === undefined)
      idle = setTimeout(() => void stop(), Math.max(0, lastEvent + idleMs - Date.now()));
  };

  const server = createServer({ allowHalfOpen: true }, handle);
  const listened = await listenAt(server, socket, serving);
  // Either way the start that named this daemon is over: it listens, or another one serves. (A
  // hook that found no socket just before takes the lock after and sees this one: client.ts.)
  endStart(socket, process.pid);
  if (listened === undefined) return undefined;
  // The socket as this daemon made it (no event is handled before this is set).
  const mine: SocketId = listened;

  const stop = () => {
    stopping ??= (async () => {
      clearTimeout(idle);
      clearInterval(watchPath);
      server.close();
      // What names this daemon beside its socket has served its purpose (markers.ts).
      unmarkStuck(socket, mine);
      endStart(socket, process.pid);
      // Only our own: a daemon that started since may listen at this path now.
      const found = atPath(socket);
      if (found.kind === 'socket' && found.id.ino === mine.ino) rmSync(socket, { force: true });
      await runtimes.closeAll();
      resolveClosed();
    })();
    return stopping;
  };
  // Another daemon took the path (it raced this one there, or replaced it when a client marked
  // it as not serving), or a client marked it: this one gets no events, so it goes.
  const watchPath = setInterval(() => {
    if (!ownPath()) void stop();
  }, 1_000);
  watchPath.unref();
  armIdle();
  const handed = options.warm === undefined ? undefined : readRequest(options.warm.trim());
  if (handed !== undefined && !('answer' in handed) && startsSession(handed.agent, handed.judged))
    warm(handed);
  return { socket, closed, stop };
}

function idleFromEnv(env: NodeJS.ProcessEnv): number {
  return positiveFromEnv(env.HERMES_DAEMON_IDLE_MS, DAEMON_IDLE_MS);
}

/** A variable's positive number, else `fallback` (unset, or not a positive number). */
function positiveFromEnv(value: string | undefined, fallback: number): number {
  const set = Number(value);
  return value !== undefined && Number.isFinite(set) && set > 0 ? set : fallback;
}

/** `HERMES_DAEMON_MAX_RUNTIMES`: how many runtimes (worker threads) are kept at most. */
function maxFromEnv(env: NodeJS.ProcessEnv): number {
  const set = Number(env.HERMES_DAEMON_MAX_RUNTIMES);
  return Number.isInteger(set) && set > 0 ? set : MAX_RUNTIMES;
}

/**
 * An event answered as the hook process answers it, with no runtime: loaded at the first such
 * event, so that the daemon listens without the framework and its policies in this thread (they
 * load in each runtime's own: runtime-worker.ts). What the daemon's process loads before it
 * listens is the daemon alone (daemon-main.ts).
 */
async function answerWithoutRuntime(
  agent: CommandHookAgent,
  stdin: string,
  options: { home: string; logger: Logger },
) {
  const { runCommandHook } = await import('../command-hook/run-hook.js');
  return runCommandHook(agent, stdin, { ...options, runtimes: NONE });
}
