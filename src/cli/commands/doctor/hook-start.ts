import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { hermesCommand } from '../../../command-name.js';
import type { CommandHookAgent } from '../../../host/command-hook/agents.js';
import type { InstalledHook } from '../../../host/command-hook/installed.js';

/** Long enough for a cold Node start on a loaded machine; doctor is not on the hook path. */
const START_TIMEOUT_MS = 20_000;

/**
 * Why an installed hook whose paths all exist still cannot start hermes, if it cannot: the
 * project form runs `node_modules/.bin/hermes`, a script that finds `node` on the PATH; either
 * form is tried as a real child process (`--version`, which loads the command line but no
 * extension). Said with this process's PATH, which is the agent's when doctor runs in its
 * shell. Undefined: it starts.
 */
export function hookStartProblem(
  agent: CommandHookAgent,
  hook: InstalledHook,
): { message: string; fix: string } | undefined {
  if (hook.argv.length < 3) return undefined; // a project command seen without its project
  // A command found on the PATH (`hermes`, `npx hermes-extensions`: npx could even download
  // one) is the user's own; install writes absolute paths.
  if (!isAbsolute(hook.argv[0] as string)) return undefined;
  if (hook.project && !onPath('node'))
    return {
      message: `its command runs the project's ${hook.argv[0]} with the node on the PATH, and there is none (PATH=${process.env.PATH ?? ''}): ${failingHookMeans(agent, hook)}`,
      fix: 'install Node.js, or put it on the PATH the agent runs with',
    };
  // hermes' command line without `hook <agent>`.
  const [program, ...args] = hook.argv.slice(0, -2);
  const run = spawnSync(program as string, [...args, '--version'], {
    encoding: 'utf8',
    timeout: START_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (run.status === 0) return undefined;
  const why =
    run.error?.message ??
    (run.stderr.trim().split('\n')[0] || `exit code ${run.status ?? run.signal}`);
  return {
    message: `its command runs ${hook.argv.slice(0, -2).join(' ')}, which does not start (${why}): ${failingHookMeans(agent, hook)}`,
    fix: hook.project
      ? `npm install (in the project), then ${hermesCommand()} extensions doctor again`
      : `${hermesCommand()} hook install ${agent.name} with a working hermes-extensions`,
  };
}

/** What a hook that cannot start hermes does to tool calls: refuses them, or (bare) lets them through. */
export function failingHookMeans(agent: CommandHookAgent, hook: InstalledHook): string {
  return hook.failsClosed
    ? `the hook refuses every tool call in ${agent.title} until it does`
    : `${agent.title} lets a failing hook through, so no extension runs there`;
}

/** Whether `name` is an executable in a folder of PATH, as `/usr/bin/env` looks for it. */
function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
