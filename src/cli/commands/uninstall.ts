import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseDocument } from 'yaml';
import { hermesRun } from '../../command-name.js';
import { HOME_ENTRIES, sharedParents } from '../../config/home-entries.js';
import { findProjectRoot } from '../../config/locations.js';
import { removeEmptyFolders } from '../../fs/empty-folders.js';
import { COMMAND_HOOK_AGENTS, type CommandHookAgent } from '../../host/command-hook/agents.js';
import { isHermesHookCommand } from '../../host/command-hook/installed.js';
import { settingsFormat } from '../../host/command-hook/settings/formats.js';
import { HERMES_PLUGIN_NAME, isOurPlugin } from '../../host/hermes-agent/plugin-install.js';
import { readTrust } from '../../trust/store.js';
import type { CommandContext } from '../context.js';
import { cwdFlag } from '../cwd-flag.js';
import { CliError, type Io } from '../io.js';
import { daemonsOfHome, stopDaemon } from './daemon.js';
import { hookUninstallCommand, settingsTarget } from './hook.js';
import { uninstallHermesPluginCommand } from './hook-hermes-plugin.js';

export interface UninstallOptions {
  cwd?: string;
  /** The project's hooks (its shared settings and Claude Code's local ones), under `--cwd`. */
  project?: boolean;
  /** The user's hooks of every agent, the Hermes plugin, the daemon, `$HERMES_HOME`'s entries. */
  global?: boolean;
  dryRun?: boolean;
  yes?: boolean;
}

/** One thing uninstall takes out: said before, done after the user agreed. */
interface Step {
  what: string;
  run(): Promise<unknown> | unknown;
}

/**
 * `hermes extensions uninstall [--global] [--project] [--dry-run] [--yes]` (docs/uninstall.md):
 * takes out everything this package put in place — every agent's hooks, the Hermes agent plugin,
 * the hook daemons of this home and this package's own entries of `$HERMES_HOME`
 * (src/config/home-entries.ts) — through the same code as `hook uninstall`, and nothing else:
 * the Hermes agent's files in the same home, the user's own extensions and settings and the
 * project's `.hermes/` stay, said so. Without a flag, `--global`: the project's hooks are in files
 * the project shares (committed), so they go only when asked for.
 */
export async function uninstallCommand(
  context: CommandContext,
  options: UninstallOptions,
  io: Io,
): Promise<number> {
  const global = options.global || !options.project;
  const root = findProjectRoot(context.cwd, context.home);
  const steps: Step[] = [];
  const kept: string[] = [];
  for (const agent of Object.values(COMMAND_HOOK_AGENTS)) {
    if (global) steps.push(...hookSteps(agent, { cwd: context.cwd }, io));
    for (const scope of [
      { cwd: context.cwd, project: true },
      { cwd: context.cwd, local: true },
    ]) {
      const found = hookSteps(agent, scope, io);
      if (options.project) steps.push(...found);
      else
        for (const step of found)
          kept.push(
            `${step.what}: ${scope.local ? 'in the project, yours' : "the project's, shared"} (add --project${cwdFlag(root)} to take it out too)`,
          );
    }
  }
  if (global) {
    steps.push(...(await globalSteps(context.home, io)));
    kept.push(...keptInHome(context.home), ...otherProjects(context.home, root, io));
  }
  const local = join(root, '.hermes');
  if (existsSync(local) && local !== context.home)
    kept.push(
      `${local}: the project's own config and extensions (and its audit log, where audit-log keeps it): yours, left as they are`,
    );

  if (steps.length === 0) {
    io.out('Nothing of hermes-extensions to remove here.');
    for (const line of kept) io.out(`Kept ${line}`);
    return 0;
  }
  io.out(options.dryRun ? 'Would remove:' : 'Removes:');
  for (const step of steps) io.out(`  ${step.what}`);
  for (const line of kept) io.out(`Kept ${line}`);
  if (options.dryRun) return 0;
  if (!(await agreed(options, io))) {
    io.out('Nothing removed.');
    return 1;
  }
  // One step that fails (a settings file that no longer parses) does not keep back the others.
  const failed: string[] = [];
  for (const step of steps) {
    try {
      await step.run();
    } catch (error) {
      failed.push(`${step.what}: ${(error as Error).message}`);
    }
  }
  if (global) pruneHome(context.home);
  for (const line of failed) io.err(`hermes: not removed: ${line}`);
  return failed.length > 0 ? 1 : 0;
}

/** The agent's hermes hooks in the settings file of `scope`, as one step; none when there are none. */
function hookSteps(
  agent: CommandHookAgent,
  scope: { cwd: string; project?: boolean; local?: boolean },
  io: Io,
): Step[] {
  let file: string;
  try {
    file = settingsTarget(agent, scope).file;
  } catch {
    return []; // The agent has no such settings (its hooks are only the user's).
  }
  const commands = settingsFormat(agent).hookCommands(file);
  if (commands === undefined && existsSync(file))
    return [
      {
        what: `the hermes hooks of ${agent.title} in ${file}, if it has any (it cannot be read now)`,
        run: () => hookUninstallCommand(agent.name, scope, io),
      },
    ];
  if (!commands?.some(({ command }) => isHermesHookCommand(command, agent))) return [];
  return [
    {
      what: `the hermes hooks of ${agent.title} in ${file}`,
      run: () => hookUninstallCommand(agent.name, scope, io),
    },
  ];
}

/** The Hermes plugin, the hook daemons of `home`, then this package's own entries of `home`. */
async function globalSteps(home: string, io: Io): Promise<Step[]> {
  const steps: Step[] = [];
  const pluginDir = join(home, 'plugins', HERMES_PLUGIN_NAME);
  if (isOurPlugin(pluginDir))
    steps.push({
      what: `the Hermes agent plugin in ${pluginDir}, and its plugins.enabled entry in ${join(home, 'config.yaml')}`,
      run: () => uninstallHermesPluginCommand(io),
    });
  // Before the entries: a daemon still running would write its log and turns again.
  const { dir, daemons } = await daemonsOfHome(home);
  for (const { socket, pid } of daemons)
    steps.push({
      what: `the hook daemon ${pid} serving ${home} (stopped first)`,
      run: () => stopDaemon(socket, io),
    });
  if (daemons.length > 0)
    steps.push({
      what: `${dir}, the daemons' folder, when they leave it empty`,
      run: () => removeEmptyFolders(dir, dirname(dir)),
    });
  for (const entry of HOME_ENTRIES) {
    const path = join(home, entry.path);
    if (entry.fate !== 'removed' || !existsSync(path)) continue;
    steps.push({
      what: `${path}: ${entry.holds}`,
      run: () => {
        rmSync(path, { recursive: true, force: true });
        io.out(`Removed ${path}.`);
      },
    });
  }
  return steps;
}

/**
 * The hooks of the other projects this home trusted, before their records go: uninstall cannot
 * know every project the user installed a hook in, but these it can name, with the command.
 */
function otherProjects(home: string, root: string, io: Io): string[] {
  const kept: string[] = [];
  for (const project of Object.keys(readTrust(home))) {
    if (project === root || !existsSync(project)) continue;
    for (const agent of Object.values(COMMAND_HOOK_AGENTS))
      for (const scope of [{ project: true }, { local: true }])
        for (const step of hookSteps(agent, { cwd: project, ...scope }, io))
          kept.push(
            `${step.what}: another project's (${hermesRun(`extensions uninstall --project${cwdFlag(project)}`)})`,
          );
  }
  return kept;
}

/** What of `home` is the user's, said as kept: their extensions, their `extensions:` settings. */
function keptInHome(home: string): string[] {
  const kept: string[] = [];
  for (const entry of HOME_ENTRIES) {
    const path = join(home, entry.path);
    if (entry.fate !== 'kept' || !existsSync(path)) continue;
    if (entry.path === 'config.yaml') {
      if (hasExtensionsSection(path))
        kept.push(`the extensions: section of ${path}: your settings (remove it by hand)`);
    } else kept.push(`${path}: ${entry.holds}`);
  }
  return kept;
}

function hasExtensionsSection(file: string): boolean {
  try {
    return parseDocument(readFileSync(file, 'utf8')).has('extensions');
  } catch {
    return false;
  }
}

/** The folders this package's entries were in (`cache/`, `logs/`), and the home, once empty. */
function pruneHome(home: string): void {
  for (const parent of sharedParents()) removeEmptyFolders(join(home, parent), dirname(home));
  removeEmptyFolders(home, dirname(home));
}

async function agreed(options: UninstallOptions, io: Io): Promise<boolean> {
  if (options.yes) return true;
  if (!io.interactive)
    throw new CliError(
      'not a terminal: re-run with --yes to remove these, or with --dry-run to only list them',
      2,
    );
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await prompt.question('Remove them? [y/N] ');
  prompt.close();
  return /^y(es)?$/i.test(answer.trim());
}
