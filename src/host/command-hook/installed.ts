import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse } from 'shell-quote';
import type { CommandHookAgent } from './agent.js';
import { byInstallOrder, type HookForm, hookForm } from './hook-command.js';
import { settingsFormat } from './settings/formats.js';

export { byInstallOrder, isHermesHookCommand } from './hook-command.js';

/** Which of the agent's settings files: the user's, the project's shared one, or its local one. */
export type HookScope = 'user' | 'project' | 'local';

/** A `hermes hook <agent>` command found in one of the agent's settings files. */
export interface InstalledHook {
  file: string;
  scope: HookScope;
  command: string;
  /** The events it is registered for. */
  events: string[];
  /** It runs the project's own `node_modules/.bin/hermes` (no path of this machine). */
  project: boolean;
  /**
   * It answers with a refusal when hermes cannot run (hook-wrapper.ts); the bare commands of
   * earlier versions exit 127 or 1 there, which both agents take as a go-ahead.
   */
  failsClosed: boolean;
  /**
   * It unsets what would let the agent's environment weaken a guard and (the user form) carries
   * the user's `$HERMES_HOME` (hook-wrapper.ts); false for what earlier versions wrote.
   */
  pinned: boolean;
  /** The program this version writes (hook-command.ts, HookForm). */
  current: boolean;
  /**
   * What it runs: the project's `node_modules/.bin/hermes hook <agent>` for a project command
   * (unknown without a project: empty), else its command line's words.
   */
  argv: string[];
  /**
   * Paths the command runs that do not exist: the node binary and bin script of an absolute
   * command, the project's `node_modules/.bin/hermes` of a project command.
   */
  missing: string[];
  /** The file of the program the short line runs, and what is wrong with it (hook-command.ts). */
  hookFile?: { path: string; problem?: string };
}

/** The agent's settings files that may hold its hook: the user's, and `project`'s when given. */
export function settingsFiles(
  agent: CommandHookAgent,
  project?: string,
): Array<{ file: string; scope: HookScope }> {
  const files: Array<{ file: string | undefined; scope: HookScope }> = [
    { file: agent.settingsFile(undefined), scope: 'user' },
    ...(project === undefined
      ? []
      : [
          { file: agent.settingsFile(project), scope: 'project' as const },
          { file: agent.localSettingsFile(project), scope: 'local' as const },
        ]),
  ];
  return files.filter((at): at is { file: string; scope: HookScope } => at.file !== undefined);
}

/**
 * The hermes hooks in the agent's settings, user-wide and in `project` when given: which events
 * they cover and whether the paths they run still exist (a moved package or a removed Node
 * version breaks the command, a project command needs the project's own hermes-extensions
 * installed, and both agents treat a failing hook as non-blocking: the extensions would silently
 * stop running there).
 */
export function inspectInstalledHooks(agent: CommandHookAgent, project?: string): InstalledHook[] {
  const found: InstalledHook[] = [];
  const seen = new Set<string>();
  for (const { file, scope } of settingsFiles(agent, project)) {
    if (seen.has(file)) continue;
    seen.add(file);
    const commands = settingsFormat(agent).hookCommands(file);
    if (commands === undefined) continue;
    const byCommand = new Map<string, InstalledHook>();
    for (const { event, command } of commands) {
      const form = hookForm(command, agent);
      if (form === undefined) continue;
      const argv = form.project ? projectArgv(agent, project) : form.argv;
      // The short lines differ by event only: one hook, the file they all run.
      const key = form.hookFile === undefined ? command : `file ${form.hookFile.path}`;
      const installed = byCommand.get(key) ?? {
        file,
        scope,
        command,
        events: [],
        ...form,
        argv,
        missing: runs(command, form, argv, project).filter((path) => !existsSync(path)),
      };
      if (!installed.events.includes(event)) installed.events.push(event);
      byCommand.set(key, installed);
    }
    found.push(...byCommand.values());
  }
  for (const hook of found) hook.events.sort(byInstallOrder(agent));
  return found;
}

/** The project command's `node_modules/.bin/hermes hook <agent>` in `project` (none unknown). */
function projectArgv(agent: CommandHookAgent, project: string | undefined): string[] {
  if (project === undefined) return [];
  const bin = join(agent.projectCommandRoot(project), 'node_modules', '.bin', 'hermes');
  return [bin, 'hook', agent.name];
}

/**
 * The absolute paths a hook command runs: the project's `node_modules/.bin/hermes` for a project
 * command (none known without a project), else the absolute words of its command line, for a
 * bare one `$CLAUDE_PROJECT_DIR` read as the project.
 */
function runs(
  command: string,
  form: HookForm,
  argv: string[],
  project: string | undefined,
): string[] {
  if (form.project) return argv.slice(0, 1);
  const env = (name: string) =>
    name === 'CLAUDE_PROJECT_DIR' && project !== undefined ? project : `$${name}`;
  const words = form.failsClosed ? argv : parse(command, env);
  return words.filter((word): word is string => typeof word === 'string' && isAbsolute(word));
}
