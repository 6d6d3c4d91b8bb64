/**
 * What the hook client (`hermes hook <agent>`, on its fast path) and the hook daemon say to each
 * other, and where the daemon listens. This file imports only Node's built-ins: the client loads
 * it without the framework.
 *
 * One connection carries one hook event. The client writes one request line; the daemon writes
 * DAEMON_ACK at once, from its main thread, as soon as it has read it (a client that gets no
 * acknowledgement within a few hundred milliseconds takes the daemon for not serving: client.ts),
 * then one answer line, then closes. Lines are JSON followed by `\n`. The client keeps its side
 * open until the answer: a request whose connection has ended or closed before its event is
 * started is not started (its client has gone), nor one past its `deadline`.
 *
 * A daemon serves exactly one `$HERMES_HOME`, one framework version, one Node, one protocol and one
 * set of the environment variables of DAEMON_ENV: all of these go into the socket's name, so a
 * client never reaches a daemon that would answer differently from a hook run in-process — it
 * reaches its own, or none (and then starts it and answers in-process). A request that reaches a
 * daemon with other values of those (written by hand: no client sends one) is refused, never
 * answered with them (`keyedEnvDifferences`).
 *
 * The rest of the hook's environment travels in each request (`env`): the daemon answers from a
 * worker thread whose `process.env` is exactly that environment while the event is answered
 * (thread-env.ts, runtime-workers.ts), so an extension that reads a variable sees the asking
 * hook's value, never the first session's. What a thread cannot take on is part of the socket's
 * name instead, so a hook with another value reaches another daemon, started with it: variables
 * Node, libuv, ICU or OpenSSL read when the process starts (`NODE_OPTIONS` and the other `NODE_*`,
 * `UV_*`, `TZ`, the locale, OpenSSL's). (`HOME` and `TMPDIR`, which `os.homedir()` and
 * `os.tmpdir()` read from the thread's start, are read from `process.env` in the daemon's
 * runtime threads: thread-env.ts.)
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { USER_FOLDER_VARIABLES } from '../../policy/protected/agent-folders.js';
import { daemonFolder } from '../../policy/protected/daemon-folder.js';
import { sha256Hex } from './sha256.js';

export const DAEMON_PROTOCOL = 3;

/** The daemon's acknowledgement of a request line, before it answers (the line, without `\n`). */
export const DAEMON_ACK = `{"v":${DAEMON_PROTOCOL},"ack":true}`;

/**
 * Variables a different value of which is a different daemon: the framework's and
 * OpenTelemetry's own (the daemon reads some of them itself), those that place user folders on
 * protected ground (USER_FOLDER_VARIABLES: it is made once per runtime), and those a worker
 * thread's `process.env` cannot change: read when the process starts by Node, libuv, ICU or
 * OpenSSL (`NODE_OPTIONS`, `TZ`, the locale…). One pattern, so that the Perl hook client
 * (hook-client.pl, which the build gives it) keys the socket on the same names.
 */
export const KEYED_ENV = new RegExp(
  `^(HERMES_|OTEL_|NODE_|UV_|OPENSSL_|SSL_CERT_|LC_)|^(TZ|LANG|LANGUAGE|${USER_FOLDER_VARIABLES.join('|')})$`,
);

export const DAEMON_ENV = (name: string): boolean => KEYED_ENV.test(name);

/**
 * The DAEMON_ENV variables whose values in `request` (a request's `env`) are not the daemon's
 * own (`own`), set in one and not the other included: those the socket's name was made from. A
 * hook client reaches only the daemon of its own values; a request that differs was written by
 * hand, and answering it would serve a daemon's runtimes an environment they were not keyed for
 * (`HERMES_TRUST_PROJECT=1` would load a project nobody trusted).
 */
export function keyedEnvDifferences(
  own: NodeJS.ProcessEnv,
  request: Record<string, string>,
): string[] {
  const names = new Set([...Object.keys(own), ...Object.keys(request)].filter(DAEMON_ENV));
  return [...names].filter((name) => own[name] !== request[name]).sort();
}

/**
 * What `hermes daemon status` is told of a daemon's DAEMON_ENV variables: each name, with a digest
 * of its value, not the value (`OTEL_EXPORTER_OTLP_HEADERS` may hold a key, and status prints
 * what it is told). Enough for a terminal to say which of them another daemon has otherwise.
 */
export function keyedDigests(env: NodeJS.ProcessEnv): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const name of Object.keys(env).filter(DAEMON_ENV).sort())
    digests[name] = sha256Hex(env[name] ?? '').slice(0, 16);
  return digests;
}

/**
 * The event an agent sends as a session starts, before its first prompt (Claude Code's and
 * Codex's). It decides nothing, so it is answered at once, with nothing, while the daemon loads
 * the session's runtime in the background (warm.ts): the first prompt finds it loaded, or waits
 * for that load, rather than loading one of its own in-process.
 */
export const SESSION_START = 'SessionStart';

/**
 * The agents whose hook answers SESSION_START with no output and exit 0 (their "nothing"): where
 * no daemon serves, the client answers it so itself, and hands the event to the daemon it starts
 * (client.ts).
 */
export const QUIET_SESSION_START: readonly string[] = ['claude-code', 'codex'];

/**
 * Whether `stdin`, a hook's input, is SESSION_START of an agent of QUIET_SESSION_START. Read as
 * the hook reads any event (JSON.parse, its `hook_event_name`): a tool call that only mentions
 * the name is not one.
 */
export function isSessionStart(agent: string, stdin: string): boolean {
  if (!QUIET_SESSION_START.includes(agent) || !stdin.includes(SESSION_START)) return false;
  try {
    const event = JSON.parse(stdin) as unknown;
    return (
      event !== null &&
      typeof event === 'object' &&
      !Array.isArray(event) &&
      (event as Record<string, unknown>).hook_event_name === SESSION_START
    );
  } catch {
    return false;
  }
}

export interface DaemonRequest {
  v: typeof DAEMON_PROTOCOL;
  /** `claude-code` or `codex`. */
  agent: string;
  /** The hook event exactly as the agent wrote it on the client's stdin. */
  stdin: string;
  /** The client's working folder (events without `cwd` are judged there). */
  cwd: string;
  /** The client's environment: the `process.env` the event is answered with. */
  env: Record<string, string>;
  /** When the client stops waiting (epoch ms): past it, the event is not started. */
  deadline?: number;
}

export interface DaemonAnswer {
  v: typeof DAEMON_PROTOCOL;
  /** What the client prints on stdout, on stderr, and its exit code. */
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * What makes one daemon: home, framework version, Node, and the DAEMON_ENV variables. Node is
 * its program file (device, inode, size and modification second: `nodeIdentity`), which the
 * Perl hook client can read without starting it; another Node, or one upgraded in place, is
 * another file.
 */
export function daemonKey(
  home: string,
  frameworkVersion: string,
  env: NodeJS.ProcessEnv = process.env,
  node: string = nodeIdentity(),
): string {
  const vars = Object.keys(env)
    .filter(DAEMON_ENV)
    .sort()
    .map((name) => `${name}=${env[name]}`);
  return sha256Hex([home, frameworkVersion, node, DAEMON_PROTOCOL, ...vars].join('\0')).slice(
    0,
    24,
  );
}

/** `process.execPath` as `stat` gives it: `dev:ino:size:mtime` (whole seconds), exact (bigint). */
export function nodeIdentity(path: string = process.execPath): string {
  const stats = statSync(path, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs / 1_000_000_000n}`;
}

/**
 * The folder of the user's daemon sockets (daemon-folder.ts): made 0700 by the daemon, and
 * checked (owned by this user, not group- or world-accessible) by the client before it connects.
 */
export function daemonDir(env: NodeJS.ProcessEnv = process.env): string {
  return daemonFolder(env);
}

export function daemonSocketPath(key: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(daemonDir(env), `${key}.sock`);
}

/**
 * A line for the daemon itself instead of a hook event (`hermes daemon status|stop`): it answers
 * with its DaemonStatus line; for `stop`, it then closes its runtimes and exits.
 */
export interface DaemonControl {
  v: typeof DAEMON_PROTOCOL;
  control: 'status' | 'stop';
}

export interface DaemonStatus {
  v: typeof DAEMON_PROTOCOL;
  pid: number;
  socket: string;
  home: string;
  startedAt: string;
  uptimeMs: number;
  /** The project roots whose runtimes it keeps now. */
  projects: string[];
  /** The runtimes it keeps now (one per project and hook environment, each in a worker thread). */
  runtimes: number;
  /**
   * The runtimes kept now, least recently used first: the project, how many events each answers
   * now, and how long an idle one has gone without an event (ms).
   */
  warm?: { project: string; busy: number; idleMs?: number }[];
  /**
   * When it lets runtimes go: idle for `runtimeIdleMs`, or, least recently used first, while its
   * resident memory is over `maxRss` bytes; and how many it keeps at most (runtime-eviction.ts).
   */
  limits?: { runtimeIdleMs: number; maxRss: number; maxRuntimes: number };
  /** The daemon's resident memory, its runtimes' included, in bytes. */
  rss: number;
  /**
   * What its socket's name was made from but the home: the framework's version, Node (its
   * program and version) and the DAEMON_ENV variables it runs with (`keyedDigests`), so that a
   * terminal can say why a daemon is not its own.
   */
  made?: { version: string; node: string; keyed: Record<string, string> };
  /** Hook events answered since it started. */
  requests: number;
}
