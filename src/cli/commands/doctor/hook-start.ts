import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { hermesCommand } from '../../../command-name.js';
import { insideRelative } from '../../../fs/paths.js';
import type { CommandHookAgent } from '../../../host/command-hook/agents.js';
import type { InstalledHook } from '../../../host/command-hook/installed.js';
import { NOT_STARTED, projectHermes } from './project-hermes.js';

/** Long enough for a cold Node start on a loaded machine; doctor is not on the hook path. */
const START_TIMEOUT_MS = 20_000;

/** What an installed hook's start comes to: a problem, or what was said of a program not run. */
export type HookStart =
  | { problem: { message: string; fix: string } }
  | { note: string }
  | undefined;

/**
 * Why an installed hook whose paths all exist still cannot start hermes, if it cannot. The
 * user's own command (in the user's settings, running nothing inside the project) is tried as a
 * real child process (`--version`, which loads the command line but no extension). A program
 * the project ships is never run — the project form's `node_modules/.bin/hermes`, or any command
 * found in the project's settings files or naming a file inside the project: a cloned repository
 * ships them, and doctor runs before anything is trusted. Of those it says what it can read
 * (project-hermes.ts) and `note`s that it did not start them. Said with this process's PATH,
 * which is the agent's when doctor runs in its shell. Undefined: it starts.
 */
export function hookStartProblem(
  agent: CommandHookAgent,
  hook: InstalledHook,
  projectRoot: string,
): HookStart {
  if (hook.argv.length < 3) return undefined; // a project command seen without its project
  // A command found on the PATH (`hermes`, `npx hermes-extensions`: npx could even download
  // one) is the user's own; install writes absolute paths.
  if (!isAbsolute(hook.argv[0] as string)) return undefined;
  if (hook.project && !onPath('node'))
    return {
      problem: {
        message: `its command runs the project's ${hook.argv[0]} with the node on the PATH, and there is none (PATH=${process.env.PATH ?? ''}): ${failingHookMeans(agent, hook)}`,
        fix: 'install Node.js, or put it on the PATH the agent runs with',
      },
    };
  if (hook.project) return projectFormStart(agent, hook);
  const programs = hook.argv.slice(0, -2);
  const shipped =
    hook.scope !== 'user' ||
    programs.some((word) => isAbsolute(word) && insideRelative(projectRoot, word) !== undefined);
  if (shipped) return { note: `its command runs ${programs.join(' ')} (${NOT_STARTED})` };
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
    problem: {
      message: `its command runs ${programs.join(' ')}, which does not start (${why}): ${failingHookMeans(agent, hook)}`,
      fix: `${hermesCommand()} hook install ${agent.name} with a working hermes-extensions`,
    },
  };
}

/** The project form: what its `node_modules/.bin/hermes` is, from the files alone. */
function projectFormStart(agent: CommandHookAgent, hook: InstalledHook): HookStart {
  const bin = hook.argv[0] as string;
  const found = projectHermes(bin);
  if (found.kind === 'unbuilt')
    return {
      problem: {
        message: `its command runs the project's ${bin}, whose hermes-extensions (${found.root}) is not built, so it does not start: ${failingHookMeans(agent, hook)}`,
        fix: `npm install (in the project), then ${hermesCommand()} extensions doctor again`,
      },
    };
  if (found.kind === 'other')
    return {
      note: `its command runs ${bin}, which is not the bin of a hermes-extensions package (${NOT_STARTED})`,
    };
  return {
    note: `the project's hermes-extensions ${found.version} (by its package.json; ${NOT_STARTED})`,
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
