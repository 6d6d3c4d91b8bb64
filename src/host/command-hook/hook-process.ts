import { isAbsolute } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { noteLockWaits } from '../../fs/lock-waits.js';
import { describeLockWaits } from '../../fs/owned-lock.js';
import type { Logger } from '../../log/logger.js';
import { chainsDeadline, hookDeadlineMs } from '../hook-deadline.js';
import { crashReason, type ProcessCrash, stackOf } from '../process-crash.js';
import type { CommandHookAgent } from './agents.js';
import { engineEventName, failed, type HookAnswer, lateAnswer, render } from './answers.js';
import { runCommandHook } from './run-hook.js';

export interface HookProcessIo {
  stdin: AsyncIterable<string | Buffer>;
  out(text: string): void;
  err(text: string): void;
  logger: Logger;
  /** Ends the process once the answer is out (the deadline passed, and work may still hold it). */
  exit(code: number): void;
  /**
   * Subscribes to the process's uncaught exceptions and unhandled rejections (src/host/process-crash.ts);
   * called before any extension loads. None: a host that keeps them to itself (a test).
   */
  crashes?(listener: (crash: ProcessCrash) => void): void;
  /**
   * Subscribes to the process's end (`process.on('exit')`): the listener prints synchronously and
   * returns the exit code to end with. None: a host that does not end with this event (a test).
   */
  exiting?(listener: () => number | undefined): void;
}

/**
 * One `hermes hook <agent>` process: the event read from stdin, answered within the deadline.
 * A failure to read stdin is an event that cannot be read (a deny); past the deadline the answer
 * is `failed` — a deny for a tool call, a `systemMessage` for anything else — and the process
 * ends at once, since a handler that is still running would otherwise keep it alive.
 *
 * An uncaught exception or unhandled rejection (an extension's timer that throws) is answered the
 * same way, naming the extension and the error, and ends the process with that answer: Node's own
 * end, exit 1 and no answer, lets both agents run the call. The answer is printed once: a crash
 * after it is only told on stderr.
 */
export async function answerHookProcess(
  agent: CommandHookAgent,
  io: HookProcessIo,
  deadlineMs = hookDeadlineMs(),
): Promise<number> {
  let eventName: string | undefined;
  let answered = false;
  const print = (answer: HookAnswer) => {
    answered = true;
    // Each a line: what `printed` spells out for hosts that print for this process (the daemon).
    if (answer.stdout) io.out(answer.stdout);
    if (answer.stderr) io.err(answer.stderr);
  };
  io.crashes?.((crash) => {
    const stack = stackOf(crash.error);
    if (answered) {
      io.err(`hermes hook ${agent.name}: after its answer, ${crashReason(crash)}`);
      if (stack !== undefined) io.err(stack);
      return;
    }
    const answer = render(agent, eventName, failed(agent, eventName, crashReason(crash)));
    print(answer);
    if (stack !== undefined) io.err(stack);
    io.exit(answer.exitCode);
  });
  // An extension that calls process.exit (or anything else that ends the process before the
  // answer) would otherwise leave exit 0 and no answer: both agents run the call on that.
  io.exiting?.(() => {
    if (answered) return undefined;
    const why =
      'the process was ending before the extensions decided (did an extension call process.exit?)';
    const answer = render(agent, eventName, failed(agent, eventName, why));
    print(answer);
    return answer.exitCode;
  });
  const read = async () => {
    let input = '';
    for await (const chunk of io.stdin) input += chunk;
    return input;
  };
  const { answer, late } = await answerInTime(
    agent,
    read,
    async (input, deadline) => {
      eventName = engineEventName(agent, input);
      const relative = relativeHomeProblem(agent);
      if (relative !== undefined)
        return render(agent, eventName, failed(agent, eventName, relative));
      return runCommandHook(agent, input, { logger: io.logger, deadline });
    },
    deadlineMs,
  );
  // A crash answered already, and is ending the process.
  if (answered) return 0;
  print(answer);
  if (late) io.exit(answer.exitCode);
  return answer.exitCode;
}

/**
 * Why a relative `$HERMES_HOME` is refused, if it is one: the agents run a hook in the event's
 * folder, the project's, so the home it names — extensions, config, trust store — would be one the
 * project ships (a project's settings can set the variable: Claude Code passes their `env` to its
 * hooks). `~` and `~/…` are the user's. The installed user form carries an absolute one.
 */
function relativeHomeProblem(agent: CommandHookAgent): string | undefined {
  const home = process.env.HERMES_HOME;
  if (home === undefined || home === '~' || home.startsWith('~/') || isAbsolute(home))
    return undefined;
  return `HERMES_HOME ${JSON.stringify(home)} is not an absolute path, and would be read in the folder the agent runs the hook in (the project's): set HERMES_HOME to an absolute path, or leave it unset for ~/.hermes, then run \`${hermesCommand()} hook install ${agent.name}\` again`;
}

/**
 * One event answered within the deadline, by the hook process and the hook daemon alike: `read`
 * failing is an event that cannot be read; past the deadline the answer is `failed` and `late`
 * is set (the work may still be running).
 */
export async function answerInTime(
  agent: CommandHookAgent,
  read: () => Promise<string>,
  /** Decides the event; its chains must have decided by `deadline` (a `Date.now()` time). */
  answer: (input: string, deadline: number) => Promise<HookAnswer>,
  deadlineMs = hookDeadlineMs(),
): Promise<{ answer: HookAnswer; late: boolean }> {
  let eventName: string | undefined;
  const deadline = chainsDeadline(Date.now(), deadlineMs);
  // The locks its work waits for: a deadline passed waiting for one (a turn lock another hook of
  // the session holds) is told as that, not as a handler that hangs.
  const waits = new Set<string>();
  const work = noteLockWaits(waits, async () => {
    let input: string;
    try {
      input = await read();
    } catch (error) {
      const why = `stdin could not be read: ${(error as Error)?.message ?? String(error)}`;
      return render(agent, undefined, failed(agent, undefined, why));
    }
    eventName = engineEventName(agent, input);
    return answer(input, deadline);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), deadlineMs);
  });
  const answered = await Promise.race([work, late]);
  clearTimeout(timer);
  if (answered !== undefined) return { answer: answered, late: false };
  return { answer: lateAnswer(agent, eventName, deadlineMs, describeLockWaits(waits)), late: true };
}
