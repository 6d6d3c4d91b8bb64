import type { Logger } from '../../log/logger.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../command-hook/agents.js';
import { failed, printed, render } from '../command-hook/answers.js';
import type { RuntimeSource } from '../command-hook/runtime-source.js';
import { DAEMON_PROTOCOL, type DaemonAnswer, keyedEnvDifferences } from './protocol.js';

/**
 * Reading the hook daemon's request lines (protocol.ts): what a line asks, the event it carries
 * as the hook process would judge it, and the order events of one session are answered in.
 */
export type RequestLine = Record<string, unknown>;

/** The line as a JSON object; undefined when it is none. */
export function parse(line: string): RequestLine | undefined {
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
export function unreadable(line: string, why: string): DaemonAnswer {
  const named = /"agent"\s*:\s*"([a-z-]+)"/.exec(line.slice(0, 200))?.[1];
  const agent =
    named && Object.hasOwn(COMMAND_HOOK_AGENTS, named) ? COMMAND_HOOK_AGENTS[named] : undefined;
  if (agent !== undefined) {
    return {
      v: DAEMON_PROTOCOL,
      ...printed(render(agent, undefined, failed(agent, undefined, why))),
    };
  }
  return { v: DAEMON_PROTOCOL, stdout: '', stderr: `hermes daemon: ${why}\n`, exitCode: 2 };
}

/** The session an event's input names (`session_id`, by which events are ordered); else none. */
export function sessionOf(stdin: string): string | undefined {
  const sessionId = parse(stdin)?.session_id;
  return typeof sessionId === 'string' ? sessionId : undefined;
}

export interface Judged {
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
export function judgedIn(stdin: string, cwd: string | undefined): Judged {
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
export function isEnvironment(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === 'string');
}

/** What answers an event that is no event: runCommandHook refuses it before asking for one. */
export const NONE: RuntimeSource = {
  acquire: () => Promise.reject(new Error('no runtime for an input that is not a hook event')),
  release: async () => {},
};

/** Runs `work` after the work queued under `key` before it (at once without a key). */
export function inOrder<T>(
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

/** A request that carries a hook event. */
export interface EventRequest {
  agent: CommandHookAgent;
  judged: Judged;
  /** Its hook's environment. */
  asked: Record<string, string>;
  /** When its client stops waiting (epoch ms). */
  deadline: number;
}

/**
 * The hook event a request (`line`, parsed; not a control line) carries, or the answer that
 * refuses it: one that names no known agent, is not of this protocol, or whose DAEMON_ENV
 * variables are not the daemon's own (`own`; logged to `log`).
 */
export function eventRequest(
  request: RequestLine,
  line: string,
  own: NodeJS.ProcessEnv,
  log: Logger,
): EventRequest | { answer: DaemonAnswer } {
  const agent =
    typeof request.agent === 'string' && Object.hasOwn(COMMAND_HOOK_AGENTS, request.agent)
      ? COMMAND_HOOK_AGENTS[request.agent]
      : undefined;
  if (agent === undefined) return { answer: unreadable(line, 'the request names no known agent') };
  if (
    request.v !== DAEMON_PROTOCOL ||
    typeof request.stdin !== 'string' ||
    !isEnvironment(request.env)
  ) {
    const why = `the daemon speaks protocol ${DAEMON_PROTOCOL}; this request is not one of it`;
    return {
      answer: {
        v: DAEMON_PROTOCOL,
        ...printed(render(agent, undefined, failed(agent, undefined, why))),
      },
    };
  }
  const asked = request.env;
  const cwd = typeof request.cwd === 'string' ? request.cwd : undefined;
  const judged = judgedIn(request.stdin, cwd);
  const differ = keyedEnvDifferences(own, asked);
  if (differ.length > 0) {
    const names = differ.join(', ');
    const why = `this request's ${names} differ${differ.length === 1 ? 's' : ''} from the hook daemon's own, which its socket is named for; a hook client asks only the daemon of its own environment, so the request was not written by one and is refused`;
    log.warn(
      `hermes daemon: a ${agent.name} request refused: its ${names} differ from the daemon's`,
    );
    return {
      answer: {
        v: DAEMON_PROTOCOL,
        ...printed(render(agent, judged.name, failed(agent, judged.name, why))),
      },
    };
  }
  const deadline =
    typeof request.deadline === 'number' ? request.deadline : Number.POSITIVE_INFINITY;
  return { agent, judged, asked, deadline };
}
