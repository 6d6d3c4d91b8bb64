import { parse } from 'shell-quote';
import type { CommandHookAgent } from './agent.js';
import { parseHookLine, readHookFile } from './hook-line.js';
import { unwrapHookCommand } from './hook-wrapper.js';

/** How a hermes hook command runs hermes. */
export interface HookForm {
  project: boolean;
  failsClosed: boolean;
  /**
   * A wrapped program (hook-wrapper.ts) that unsets what would let the agent's environment weaken
   * a guard, and whose user form carries the user's `$HERMES_HOME` and daemon folder. False for
   * the commands of the versions before that.
   */
  pinned: boolean;
  /**
   * The program this version writes (hook-wrapper.ts, CURRENT), which in the user form asks a
   * warm daemon through the Perl hook client first (perl-step.ts); false for an earlier one.
   */
  current: boolean;
  /** hermes' command line; none for a project command (it depends on the project). */
  argv: string[];
  /**
   * The file of the program the short line runs (hook-line.ts), and what is wrong with it if it
   * would not run (the line then refuses every call): absent for a program in the command line.
   */
  hookFile?: { path: string; problem?: string };
}

/**
 * Whether a hook command is this package's hook for `agent`: the agent's project command
 * (`agent.projectCommand`, as `hook install --project` writes it, or one an earlier version
 * wrote), a command hook-wrapper.ts wrote for this agent, or one simple command (no `;`, `&&`,
 * pipes) that ends in `hermes hook <agent>`, where `hermes` may be `hermes-extensions` or a path
 * to either or to `bin/hermes.js` (run by node). Strict, because install and uninstall rewrite
 * what matches.
 */
export function isHermesHookCommand(command: string, agent: CommandHookAgent): boolean {
  return hookForm(command, agent) !== undefined;
}

export function hookForm(command: string, agent: CommandHookAgent): HookForm | undefined {
  if (agent.legacyProjectCommands.includes(command.trim()))
    return { project: true, failsClosed: false, pinned: false, current: false, argv: [] };
  const line = parseHookLine(command);
  if (line !== undefined) {
    if (line.agent !== agent.name) return undefined;
    const read = readHookFile(line);
    if ('problem' in read)
      return {
        project: false,
        failsClosed: true,
        pinned: true,
        current: false,
        argv: [],
        hookFile: { path: line.file, problem: read.problem },
      };
    // readHookFile reads only what this version writes.
    return {
      project: false,
      failsClosed: true,
      pinned: true,
      current: true,
      argv: read.hook.argv,
      hookFile: { path: line.file },
    };
  }
  const wrapped = unwrapHookCommand(command);
  if (wrapped !== undefined) {
    if (wrapped.agent !== agent.name) return undefined;
    const { pinned, current } = wrapped;
    if (wrapped.argv.length === 0)
      return { project: true, failsClosed: true, pinned, current, argv: [] };
    return runsHermesHook(wrapped.argv, agent)
      ? { project: false, failsClosed: true, pinned, current, argv: wrapped.argv }
      : undefined;
  }
  const tokens = parse(command);
  if (tokens.some((token) => typeof token !== 'string')) return undefined;
  return runsHermesHook(tokens as string[], agent)
    ? {
        project: false,
        failsClosed: false,
        pinned: false,
        current: false,
        argv: tokens as string[],
      }
    : undefined;
}

/** Whether a command line's words end in `hermes hook <agent>`, hermes named as above. */
function runsHermesHook(words: readonly string[], agent: CommandHookAgent): boolean {
  const at = words.length - 2;
  return (
    at >= 1 &&
    words[at] === 'hook' &&
    words[at + 1] === agent.name &&
    /(^|\/)(hermes(\.js)?|hermes-extensions)$/.test(words[at - 1] as string)
  );
}

/** Sorts events in the order the agent runs them, whatever the order in the file. */
export function byInstallOrder(agent: CommandHookAgent): (a: string, b: string) => number {
  const rank = (event: string) => {
    const at = agent.installEvents.indexOf(event);
    return at === -1 ? agent.installEvents.length : at;
  };
  return (a, b) => rank(a) - rank(b);
}
