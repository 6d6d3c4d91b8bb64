import { parentPort, threadId } from 'node:worker_threads';
import { holdLocksIn } from '../../fs/lock-unit.js';
import { requireJitiThrough } from '../../modules/import-module.js';
import { serveNetworkFilterFrom } from '../../policy/sandbox/network-filter.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { Runtime } from '../../runtime/runtime.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../command-hook/agents.js';
import { failed, printed, render } from '../command-hook/answers.js';
import { answerInTime } from '../command-hook/hook-process.js';
import { runCommandHook } from '../command-hook/run-hook.js';
import type { RuntimeSource } from '../command-hook/runtime-source.js';
import {
  crashReason,
  onProcessCrash,
  type ProcessCrash,
  refusedExits,
  stackOf,
} from '../process-crash.js';
import { takeClaim } from './event-claims.js';
import { eventLogger, stderrToEvents } from './event-log.js';
import type { ReadRecorder } from './read-recorder.js';
import { sessionOf } from './requests.js';
import type { ThreadEnv } from './thread-env.js';
import type { FromWorker, ToWorker } from './worker-messages.js';

/**
 * A runtime worker's side of the daemon: each event is answered with the code and deadline of
 * the hook process (answerInTime, runCommandHook), with `process.env` the asking hook's
 * environment (thread-env.ts). The thread is started ahead, with only the framework loaded, and
 * adopts the environment of the first hook it serves. The runtime is loaded by the first event
 * that needs one, with what it reads (files and variables) recorded and sent to the daemon; it is
 * kept for the worker's life, and closed when the daemon ends the worker. What the runtime logs, and what extensions write to stderr, while an event is
 * answered goes on that answer's stderr, as in the hook process; anything else to the daemon's.
 *
 * An uncaught exception or unhandled rejection of the thread (an extension's timer that throws),
 * or an extension's call to process.exit, is told to the daemon, naming the extension and the
 * error: it refuses the events the thread took with the failure, sends those it did not take to a
 * fresh runtime, and retires the thread (worker-handle.ts). The thread runs no chain
 * after it, since its runtime's state is no longer known.
 */
export function serveEvents(recorder: ReadRecorder, env: ThreadEnv): void {
  const port = parentPort;
  if (port === null) throw new Error('the runtime worker runs only as a worker thread');
  // jiti, which reads the environment as it loads (CI, agent and terminal variables, PATH), is
  // loaded with a runtime that imports TypeScript, and only then: what the framework reads for
  // itself is not what the runtime depends on, so its reads are not noted.
  requireJitiThrough((load) => env.aside(load));
  const post = (message: FromWorker) => port.postMessage(message);
  // Sandboxed lines with a domain allowed point at the daemon's network filter, kept by it.
  serveNetworkFilterFrom({
    want: (stateDir, domains) => post({ type: 'network', stateDir, domains: [...domains] }),
  });
  // Before any extension loads: the locks this thread takes are the daemon's to remove when it
  // ends the thread (stuck, out of memory), since its process — the daemon — lives on.
  holdLocksIn({
    name: `hook daemon's runtime worker ${threadId}`,
    taking: (path, text) => post({ type: 'lock', path, text, held: true }),
    released: (path, text) => post({ type: 'lock', path, text, held: false }),
  });
  // Before any extension loads, so that everything an extension starts has an owner.
  let crashed: string | undefined;
  const onCrash = (crash: ProcessCrash) => {
    const why = crashReason(crash);
    const stack = stackOf(crash.error);
    if (crashed === undefined) {
      crashed = why;
      post({ type: 'crashed', why, ...(stack === undefined ? {} : { stack }) });
    } else {
      post({
        type: 'log',
        level: 'error',
        message: `hermes daemon: again, after its runtime failed: ${why}`,
      });
    }
  };
  onProcessCrash(onCrash);
  // In a thread, process.exit ends the thread: refused in an extension's code, it is a crash
  // that names the extension rather than a runtime that ended with no word.
  refusedExits(onCrash);
  // What is logged after an answer goes to the daemon's log; warnings and errors are marked to be
  // told with a later answer, of the session whose event's work logged them if known (the daemon
  // keeps them: late-notices.ts).
  const { logger, collect, append, outside, asRuntime } = eventLogger(
    {
      debug: (message) => post({ type: 'log', level: 'debug', message }),
      info: (message) => post({ type: 'log', level: 'info', message }),
      warn: (message) => post({ type: 'log', level: 'warn', message }),
      error: (message) => post({ type: 'log', level: 'error', message }),
    },
    (level, message, session) =>
      post({ type: 'log', level, message, tell: session === undefined ? {} : { session } }),
  );
  stderrToEvents(append, outside);

  let runtime: Promise<Runtime> | undefined;
  /**
   * What the runtime's load logged when a session's start asked for it (`warm`): told on the next
   * answer, before its own lines, as a hook process that loads it tells it with its answer.
   */
  let warmLog: Promise<string> | undefined;
  const load = async (place: { cwd: string; root?: string; home: string }): Promise<Runtime> => {
    const noting = env.note();
    const { records, outcome } = await recorder.record(() => loadRuntime({ ...place, logger }));
    // A failure is never kept: neither a load that failed nor an extension that did not set up
    // (whose runtime may refuse every tool call) — the next event loads again, in a new worker.
    const keep = outcome.ok && outcome.value.loadFailures.length === 0;
    post({ type: 'loaded', records, env: noting.stop(), keep });
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
  const runtimes: RuntimeSource = {
    acquire: ({ cwd, root, home }) => {
      runtime ??= asRuntime(() => load({ cwd, ...(root === undefined ? {} : { root }), home }));
      return runtime;
    },
    // Kept until the daemon ends the worker.
    release: async () => {},
  };

  const answer = async (event: Extract<ToWorker, { type: 'event' }>) => {
    const agent = COMMAND_HOOK_AGENTS[event.agent] as CommandHookAgent;
    let reply: { stdout: string; stderr: string; exitCode: number; late: boolean };
    const session = sessionOf(event.stdin);
    // Not taken after a crash: the daemon withdraws what this thread has not taken when it hears
    // of the crash (worker-handle.ts), and sends it to a fresh runtime. Nor one it withdrew before
    // this thread came to it (stuck meanwhile): it is another runtime's now.
    // The observers' work of the events answered before (their audit lines) is done before this
    // one is taken, bounded: this one may never yield, and what they hold in memory would end
    // with the thread.
    await (await runtime?.catch(() => undefined))?.observersSettled();
    if (crashed !== undefined || !takeClaim(event.claim)) return;
    try {
      const { value, lines } = await env.run(event.env, () =>
        collect(
          () =>
            answerInTime(
              agent,
              async () => event.stdin,
              (input, deadline) =>
                runCommandHook(agent, input, { home: event.home, logger, runtimes, deadline }),
            ),
          session,
        ),
      );
      const loadLines = (await warmLog) ?? '';
      warmLog = undefined;
      reply = { ...printed(value.answer, loadLines + lines), late: value.late };
    } catch (error) {
      const why = `unexpected error: ${String(error)}`;
      reply = { ...printed(render(agent, undefined, failed(agent, undefined, why))), late: false };
    }
    post({ type: 'answer', id: event.id, ...reply });
    answered();
  };

  const close = async () => {
    const loaded = await runtime?.catch(() => undefined);
    await loaded?.close().catch(() => {});
    // Whatever an extension left running (a timer, a handler past the deadline) ends with it.
    process.exit(0);
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'event') void answer(message);
    else if (message.type === 'probe') takeClaim(message.claim);
    else if (message.type === 'adopt') env.adopt(message.env);
    else if (message.type === 'warm') {
      const { cwd, root, home } = message;
      // A failure is the next event's to report: its load is not kept (`loaded`, above).
      const place = { cwd, ...(root === undefined ? {} : { root }), home, logger };
      const load = () => runtimes.acquire(place).then(noValue, noValue);
      warmLog = collect(() => env.run(message.env, load)).then(({ lines }) => lines);
    } else void close();
  });
}

const noValue = (): undefined => undefined;

/**
 * Tells the thread's entry that an event was answered, once: where it makes V8's code cache of
 * the thread's bundle (loader/daemon-worker.cjs), it makes it then, with what answering ran
 * compiled into it.
 */
function answered(): void {
  const key = Symbol.for('hermes-extensions.daemon.worker-answered');
  const tell = (globalThis as Record<symbol, unknown>)[key];
  if (typeof tell !== 'function') return;
  delete (globalThis as Record<symbol, unknown>)[key];
  tell();
}
