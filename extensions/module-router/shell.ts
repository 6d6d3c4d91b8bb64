import { resolve } from 'node:path';
import {
  argvScript,
  parseShell,
  type RunCommand,
  type ShellInvocation,
  unwrapCommand,
} from 'hermes-extensions/policy';

/**
 * Every command a shell tool call may run, at every level of the line and with its wrappers
 * taken off by the policy's own rules (`unwrapCommand`: `env`, `timeout`, `nice`, `command`,
 * `xargs`, `sh -c`, `eval`), and the first thing in it that could not be followed (`unclear`):
 * a line the parser cannot read, a program only known when it runs, a runner that is not
 * followed.
 */
export function shellRuns(
  invocation: Extract<ShellInvocation, { kind: 'known' }>,
  root: string,
): { runs: RunCommand[]; unclear: string | undefined } {
  const cwd = resolve(root, invocation.cwd ?? '.');
  const runs: RunCommand[] = [];
  let unclear: string | undefined;
  for (const run of invocation.runs) {
    const script = typeof run === 'string' ? parseShell(run, cwd) : argvScript(run, cwd);
    if (!script.parsed) unclear ??= 'a command the shell parser cannot read';
    for (const command of script.commands) {
      const found = unwrapCommand(command);
      runs.push(...found.commands);
      const first = found.unclear[0];
      if (first !== undefined) unclear ??= `\`${first.part}\` (${first.reason})`;
    }
  }
  return { runs, unclear };
}
