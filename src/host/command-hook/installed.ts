import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse } from 'shell-quote';
import type { CommandHookAgent } from './agents.js';
import { unwrapHookCommand } from './hook-wrapper.js';
import { type HookEntry, hooksOf } from './settings-file.js';

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
   * What it runs: the project's `node_modules/.bin/hermes hook <agent>` for a project command
   * (unknown without a project: empty), else its command line's words.
   */
  argv: string[];
  /**
   * Paths the command runs that do not exist: the node binary and bin script of an absolute
   * command, the project's `node_modules/.bin/hermes` of a project command.
   */
  missing: string[];
}

/** How a hermes hook command runs hermes. */
interface HookForm {
  project: boolean;
  failsClosed: boolean;
  /** hermes' command line; none for a project command (it depends on the project). */
  argv: string[];
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

function hookForm(command: string, agent: CommandHookAgent): HookForm | undefined {
  if (agent.legacyProjectCommands.includes(command.trim()))
    return { project: true, failsClosed: false, argv: [] };
  const wrapped = unwrapHookCommand(command);
  if (wrapped !== undefined) {
    if (wrapped.agent !== agent.name) return undefined;
    if (wrapped.argv.length === 0) return { project: true, failsClosed: true, argv: [] };
    return runsHermesHook(wrapped.argv, agent)
      ? { project: false, failsClosed: true, argv: wrapped.argv }
      : undefined;
  }
  const tokens = parse(command);
  if (tokens.some((token) => typeof token !== 'string')) return undefined;
  return runsHermesHook(tokens as string[], agent)
    ? { project: false, failsClosed: false, argv: tokens as string[] }
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

/** The agent's settings files that may hold its hook: the user's, and `project`'s when given. */
export function settingsFiles(
  agent: CommandHookAgent,
  project?: string,
): Array<{ file: string; scope: HookScope }> {
  const local = project === undefined ? undefined : agent.localSettingsFile(project);
  return [
    { file: agent.settingsFile(undefined), scope: 'user' as const },
    ...(project === undefined
      ? []
      : [{ file: agent.settingsFile(project), scope: 'project' as const }]),
    ...(local === undefined ? [] : [{ file: local, scope: 'local' as const }]),
  ];
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
    const hooks = readHooks(file);
    if (hooks === undefined) continue;
    const byCommand = new Map<string, InstalledHook>();
    for (const [event, entries] of Object.entries(hooks)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as HookEntry[]) {
        for (const hook of entry?.hooks ?? []) {
          const command = hook?.command;
          const form = typeof command === 'string' ? hookForm(command, agent) : undefined;
          if (command === undefined || form === undefined) continue;
          const argv = form.project ? projectArgv(agent, project) : form.argv;
          const installed = byCommand.get(command) ?? {
            file,
            scope,
            command,
            events: [],
            ...form,
            argv,
            missing: runs(command, form, argv, project).filter((path) => !existsSync(path)),
          };
          if (!installed.events.includes(event)) installed.events.push(event);
          byCommand.set(command, installed);
        }
      }
    }
    found.push(...byCommand.values());
  }
  for (const hook of found) hook.events.sort(byInstallOrder(agent));
  return found;
}

/** Sorts events in the order the agent runs them, whatever the order in the file. */
export function byInstallOrder(agent: CommandHookAgent): (a: string, b: string) => number {
  const rank = (event: string) => {
    const at = agent.installEvents.indexOf(event);
    return at === -1 ? agent.installEvents.length : at;
  };
  return (a, b) => rank(a) - rank(b);
}

function readHooks(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const settings: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return settings !== null && typeof settings === 'object' && !Array.isArray(settings)
      ? hooksOf(settings as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
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
