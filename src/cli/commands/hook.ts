import { join, resolve } from 'node:path';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../host/command-hook/agents.js';
import { stderrLogger } from '../../log/logger.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { CliError, type Io } from '../io.js';

/** The agents `hermes hook <agent>` and `hermes hook install <agent>` take, for messages. */
export const HOOK_AGENT_NAMES = Object.keys(COMMAND_HOOK_AGENTS).join(', ');

/**
 * `hermes hook <agent>`: one hook event of the agent on stdin, answered on stdout as its hook
 * protocol expects (src/host/command-hook/hook-process.ts). `stdin` and `deadlineMs` are given
 * when bin/hermes.js has read the event already and the hook daemon did not answer it in time.
 */
export async function hookCommand(
  agent: CommandHookAgent,
  io: Io,
  stdin: AsyncIterable<string | Buffer> = process.stdin,
  deadlineMs?: number,
): Promise<number> {
  const { answerHookProcess } = await import('../../host/command-hook/hook-process.js');
  return answerHookProcess(
    agent,
    {
      stdin,
      out: (text) => io.out(text),
      err: (text) => io.err(text),
      logger: stderrLogger,
      // Once stdout has taken the answer: a process.exit right away could cut it short.
      exit: (code) => process.stdout.write('', () => process.exit(code)),
    },
    deadlineMs,
  );
}

/**
 * `hermes hook install <agent> [--project]`: adds the hook to the agent's settings (the user's,
 * or the project's under `--cwd`), keeping what is there.
 */
export async function hookInstallCommand(
  name: string,
  options: { cwd?: string; project?: boolean },
  io: Io,
): Promise<number> {
  const agent = COMMAND_HOOK_AGENTS[name];
  if (agent === undefined)
    throw new CliError(`unknown agent "${name}"; supported: ${HOOK_AGENT_NAMES}`, 2);
  const { installCommandHooks } = await import('../../host/command-hook/install.js');
  const bin = join(PACKAGE_ROOT, 'bin', 'hermes.js');
  let result: ReturnType<typeof installCommandHooks>;
  try {
    result = installCommandHooks(agent, {
      command: `"${process.execPath}" "${bin}" hook ${agent.name}`,
      // The agent's settings only: $HERMES_HOME is not needed here.
      ...(options.project ? { project: resolve(options.cwd ?? process.cwd()) } : {}),
    });
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
  const { file, added, updated } = result;
  if (added.length > 0) io.out(`Added the hermes hook for ${added.join(', ')} to ${file}.`);
  if (updated.length > 0)
    io.out(`Updated the hermes hook's command for ${updated.join(', ')} in ${file}.`);
  if (added.length + updated.length === 0)
    io.out(`${file} already runs the hermes hook; nothing changed.`);
  else if (agent.afterInstall) io.out(agent.afterInstall);
  return 0;
}
